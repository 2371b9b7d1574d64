/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A backward ring: --overwrite's flight recorder, as perf 6.1 keeps it.
 *
 * Every event has attr.write_backward and its ring is mapped read-only
 * (mmap__init_backward): the kernel then never waits for data_tail, it
 * writes each record below the one before (data_head goes down from 0)
 * and overwrites the oldest. The ring is not drained as it fills; it is
 * read when a snapshot is taken (at a --switch-output signal and at the
 * end of the recording): backward__snapshot marks it due and the
 * reader's next pass copies it (backward__copy): the newest record
 * first, back to the oldest one that is whole and was not read by the
 * snapshot before.
 *
 * While the events are on, the kernel goes on writing below data_head,
 * over the ring's oldest bytes. perf 6.1 pauses every ring
 * (PERF_EVENT_IOC_PAUSE_OUTPUT) while it reads them, and what the kernel
 * could not write meanwhile comes as a LOST record. perfcap pauses a
 * ring only when what it copies and what the kernel wrote during the
 * copy come to more than half the ring, or the ring is small
 * (backward__unpaused_ok): then the kernel's writes, and the records it
 * is still writing, may have reached the bytes copied, and the ring is
 * copied again, paused, and let go at once (the pause lasts one copy,
 * not the whole pass over the rings as perf's does).
 *
 * The bytes go down the reader's pipeline as a forward ring's do; a
 * chunk holds its records newest first, which perf report sorts like
 * any other round (perf record writes them so too).
 */
#ifndef PERFCAP_RECORD_BACKWARD_H
#define PERFCAP_RECORD_BACKWARD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/mmap.h"

/*
 * How many bytes of whole records lie from head on in a backward ring of
 * size bytes at data, up to prev (where the last snapshot began: what is
 * past it was read then). When the kernel wrote more than the ring since
 * then, the walk goes record by record and stops before the first one
 * that is not whole in the ring (its start was overwritten) or that no
 * record header could be (size 0: never written).
 */
uint64_t backward__range(const unsigned char *data, uint64_t size, uint64_t head, uint64_t prev);

/*
 * May len bytes be copied from a ring of size bytes without pausing it,
 * when the kernel wrote written bytes during the copy? The other half
 * of the ring is the room for the records the kernel is still writing,
 * which data_head does not show yet: one per nesting level of the CPU
 * (task, softirq, irq, NMI), each under 64 KiB (its size is a u16), so
 * a ring of less than BACKWARD_UNPAUSED_MIN is always paused.
 */
#define BACKWARD_UNPAUSED_MIN (2 * 4 * 65536ULL)
bool backward__unpaused_ok(uint64_t size, uint64_t len, uint64_t written);

/* A snapshot of backward ring m is due: the readers' next pass takes it. */
void backward__snapshot(struct mmap *m);

/*
 * The snapshot of m, if one is due, into the buffer being filled or a
 * free one, as mmap__copy does it and with its returns (bytes, 0 when no
 * snapshot is due or nothing new is there, -ENOSPC, -ENOBUFS); the ring
 * goes on once it is copied.
 */
ssize_t backward__copy(struct mmap *m, struct mmap_buf **bufp);

#endif
