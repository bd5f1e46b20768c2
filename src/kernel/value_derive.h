/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How an event's fields are shown when what add kept beside it is gone
 * (no /run/fevent, another mount namespace, a failed write): read again
 * from the event's definition and the debug info of what it probes.  Each
 * integer field's fetch is traced back to a parameter, member path or
 * return value, compiled again, and its enumerators taken where the
 * compiled fetch is the same as the definition's.
 */
#ifndef VALUE_DERIVE_H
#define VALUE_DERIVE_H

#include <stdbool.h>

#include "probe_install.h"

/*
 * For ev[i] with chosen[i] (NULL: all) whose values were not kept
 * (values_kept false): the enumerator lines debug info gives, added to
 * its values, and values_kept set.  One that debug info cannot say is
 * said in warn (NULL: quiet).  -1 only out of memory.
 */
int fe_values_derive(struct fe_event_info *ev, int n, const bool *chosen,
		     struct fe_warnings *warn);

#endif
