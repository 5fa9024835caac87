// SPDX-License-Identifier: GPL-2.0
/* Userspace shim: the tracepoints' switch and their records (trace.h). */
#include "trace.h"

int shim_trace_on;
void (*shim_trace_hook)(const struct shim_trace_event *event,
			const void *record);

/* Guards every event's last record: events fire on many threads. */
static pthread_mutex_t shim_trace_lock = PTHREAD_MUTEX_INITIALIZER;

void shim_trace_start(void)
{
	__atomic_store_n(&shim_trace_on, 1, __ATOMIC_RELEASE);
}

void shim_trace_stop(void)
{
	__atomic_store_n(&shim_trace_on, 0, __ATOMIC_RELEASE);
}

void shim_trace_record(struct shim_trace_event *event, const void *record,
		       size_t size)
{
	pthread_mutex_lock(&shim_trace_lock);
	__atomic_fetch_add(&event->count, 1, __ATOMIC_RELAXED);
	event->size = size;
	memcpy(event->last, record, size);
	pthread_mutex_unlock(&shim_trace_lock);
	if (shim_trace_hook)
		shim_trace_hook(event, record);
}

bool shim_trace_copy_last(struct shim_trace_event *event, void *rec,
			  size_t size)
{
	bool fired;

	pthread_mutex_lock(&shim_trace_lock);
	fired = __atomic_load_n(&event->count, __ATOMIC_RELAXED);
	SHIM_ASSERT(!fired || event->size == size, "record of another event");
	if (fired)
		memcpy(rec, event->last, size);
	pthread_mutex_unlock(&shim_trace_lock);
	return fired;
}
