// SPDX-License-Identifier: GPL-2.0
/*
 * The writer every output goes through (src/out_file.c): paths walked a
 * name at a time ("..", "//", links in the directory part, loops, a
 * trailing slash), a regular file written beside and renamed, a link at
 * FILE replaced, a device in place, an abort that leaves nothing, and, as
 * root, the rules of fs.protected_symlinks / _regular in a sticky
 * world-writable directory (owners set with lchown).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out_file.h"
#include "tap.h"

static char dir[64];

static char *at(const char *name)
{
	static char buf[8][512];
	static int i;
	char *p = buf[i++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static char *content(const char *path)
{
	static char buf[512];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The names in d, sorted, "," between. */
static char *names(const char *d)
{
	static char buf[2048];
	struct dirent **list;
	int i, n = scandir(d, &list, NULL, alphasort);

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..")) {
			if (buf[0])
				strcat(buf, ",");
			strncat(buf, list[i]->d_name, sizeof(buf) - strlen(buf) - 300);
		}
		free(list[i]);
	}
	free(list);
	return buf;
}

static int write_text(const char *path, const char *text, struct fe_error *err)
{
	memset(err, 0, sizeof(*err));
	return fe_out_write_text(path, text, err);
}

static void plain_paths(void)
{
	struct fe_error err;
	struct fe_out *o;
	struct stat st;
	char cwd[512], *long_name;
	int ret;

	tap_ok(!write_text(at("a"), "one\n", &err), "a new file: %s", err.msg);
	tap_str(content(at("a")), "one\n", "its text");
	tap_ok(!stat(at("a"), &st) && (st.st_mode & 0777) == 0640, "0666 less the umask 027");
	tap_ok(!write_text(at("a"), "two\n", &err), "over it: %s", err.msg);
	tap_str(content(at("a")), "two\n", "replaced");
	tap_str(names(dir), "a", "no temporary, no a.old without FE_OUT_KEEP_OLD");

	mkdir(at("sub"), 0700);
	tap_ok(getcwd(cwd, sizeof(cwd)) && !chdir(dir), "into the directory");
	tap_ok(!write_text("sub/..//./b", "b\n", &err), "a relative path with .. and //: %s",
	       err.msg);
	tap_ok(!chdir(cwd), "back");
	tap_str(content(at("b")), "b\n", "b where .. leads");

	tap_ok(write_text(at("sub"), "x", &err) == -2 && strstr(err.msg, "it is a directory"),
	       "a directory is bad usage: %s", err.msg);
	tap_ok(write_text(at("sub/"), "x", &err) == -2, "so is a trailing slash: %s", err.msg);
	tap_ok(write_text(at("a/x"), "x", &err) == -1 && strstr(err.msg, "Not a directory"),
	       "a file as a directory: %s", err.msg);
	tap_ok(write_text(at("none/x"), "x", &err) == -1 &&
	       strstr(err.msg, "No such file or directory"), "no such directory: %s", err.msg);

	symlink("l2", at("l1"));
	symlink("l1", at("l2"));
	tap_ok(write_text(at("l1/x"), "x", &err) == -1 && strstr(err.msg, "Too many levels"),
	       "a loop of links in the directory part: %s", err.msg);
	tap_ok(write_text(at("l1"), "x", &err) == -1, "a loop at FILE: %s", err.msg);
	unlink(at("l1"));
	unlink(at("l2"));

	symlink("sub", at("d"));
	tap_ok(!write_text(at("d/c"), "c\n", &err), "through one's own link: %s", err.msg);
	tap_str(content(at("sub/c")), "c\n", "where the link leads");
	unlink(at("d"));

	/* a link at FILE to a regular file: the link is replaced, kept as
	 * FILE.old, its target untouched */
	symlink("b", at("e"));
	memset(&err, 0, sizeof(err));
	ret = fe_out_open(&o, at("e"), FE_OUT_KEEP_OLD, &err);
	tap_ok(!ret, "open over a link: %s", err.msg);
	if (!ret) {
		fputs("e\n", fe_out_stream(o));
		tap_ok(!fe_out_commit(o, &err), "commit: %s", err.msg);
	}
	tap_str(content(at("b")), "b\n", "the link's target untouched");
	tap_ok(!lstat(at("e"), &st) && S_ISREG(st.st_mode), "e is the new file");
	tap_ok(!lstat(at("e.old"), &st) && S_ISLNK(st.st_mode), "e.old the link");

	/* an abort leaves nothing */
	ret = fe_out_open(&o, at("f"), 0, &err);
	tap_ok(!ret, "open f: %s", err.msg);
	if (!ret) {
		fputs("f\n", fe_out_stream(o));
		fe_out_abort(o);
	}
	tap_ok(access(at("f"), F_OK) && !strstr(names(dir), ".f."), "an abort leaves nothing");

	/* a device in place, never replaced */
	ret = fe_out_open(&o, "/dev/null", FE_OUT_KEEP_OLD, &err);
	tap_ok(!ret, "open /dev/null: %s", err.msg);
	if (!ret) {
		fputs("x", fe_out_stream(o));
		tap_ok(!fe_out_commit(o, &err), "commit: %s", err.msg);
	}
	tap_ok(!lstat("/dev/null", &st) && S_ISCHR(st.st_mode) && access("/dev/null.old", F_OK),
	       "/dev/null still the device, no /dev/null.old");

	/* a name of NAME_MAX: its temporary's name is cut to fit */
	long_name = malloc(256);
	memset(long_name, 'n', 255);
	long_name[255] = '\0';
	tap_ok(!write_text(at(long_name), "n\n", &err), "a name of 255 bytes: %s", err.msg);
	tap_str(content(at(long_name)), "n\n", "written");
	unlink(at(long_name));
	free(long_name);
}

/* As root: the sticky world-writable directory's rules, owners by lchown. */
static void planted(void)
{
	struct fe_error err;
	struct stat st;
	char s[512];

	snprintf(s, sizeof(s), "%s", at("shared"));
	if (geteuid() != 0) {
		tap_ok(1, "# SKIP not root: cannot give files to other users");
		return;
	}
	mkdir(s, 0700);
	chmod(s, 01777);
	tap_ok(!write_text(at("shared/target"), "root's\n", &err), "root's own file: %s", err.msg);

	symlink("target", at("shared/other"));
	lchown(at("shared/other"), 65534, 65534);
	tap_ok(write_text(at("shared/other"), "x", &err) == -2 &&
	       strstr(err.msg, "is a link of uid 65534"), "another user's link: %s", err.msg);
	tap_str(content(at("shared/target")), "root's\n", "its target untouched");

	mkdir(at("shared/dir"), 0700);
	symlink("dir", at("shared/via"));
	lchown(at("shared/via"), 65534, 65534);
	tap_ok(write_text(at("shared/via/x"), "x", &err) == -2, "another user's link as a directory: %s",
	       err.msg);
	tap_str(names(at("shared/dir")), "", "nothing where it leads");

	tap_ok(!write_text(at("shared/theirs"), "x", &err), "a file: %s", err.msg);
	chown(at("shared/theirs"), 65534, 65534);
	tap_ok(write_text(at("shared/theirs"), "y", &err) == -2 &&
	       strstr(err.msg, "is a file of uid 65534"), "another user's file: %s", err.msg);
	tap_str(content(at("shared/theirs")), "x", "untouched");

	/* the directory's owner is trusted there, as the kernel trusts it */
	chown(s, 65534, 65534);
	tap_ok(!write_text(at("shared/theirs"), "z", &err), "the directory owner's file: %s",
	       err.msg);
	tap_ok(!write_text(at("shared/other"), "w", &err), "the directory owner's link: %s",
	       err.msg);
	tap_ok(!lstat(at("shared/other"), &st) && S_ISREG(st.st_mode),
	       "that link replaced by the file");

	/* not sticky: the rules are the kernel's, for sticky directories */
	chown(s, 0, 0);
	chmod(s, 0777);
	symlink("target", at("shared/plain"));
	lchown(at("shared/plain"), 65534, 65534);
	tap_ok(!write_text(at("shared/plain"), "p", &err), "a link in a directory that is not sticky: %s",
	       err.msg);
}

int main(void)
{
	umask(027);
	snprintf(dir, sizeof(dir), "/tmp/fe-out-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	plain_paths();
	planted();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			tap_ok(0, "remove %s", dir);
	}
	return tap_done();
}
