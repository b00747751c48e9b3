// Batsim's C interface (batsim_edc.h), forwarding every call to one worker
// thread that calls bucma's Go code.
//
// Batsim calls its decision component from a SimGrid actor, whose stack is
// not its thread's: on each call into Go from such a stack, Go asks for the
// thread's stack bounds again (pthread_getattr_np, which reads
// /proc/self/maps on the main thread), hundreds of microseconds a call.
// From a thread of its own, with its ordinary stack, Go learns the bounds
// once. The worker is started at the first call; Batsim waits for each
// answer, as it does for any decision component.
#include <pthread.h>
#include <stdint.h>

#include "_cgo_export.h"

enum { IDLE, INIT, TAKE, DEINIT };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int no_worker;

static struct {
	int kind;
	int done;
	const uint8_t *in;
	uint32_t in_size;
	uint32_t *flags;
	uint8_t **out;
	uint32_t *out_size;
	uint8_t result;
} call;

static uint8_t dispatch(int kind) {
	switch (kind) {
	case INIT:
		return bucmaInit((uint8_t *)call.in, call.in_size, call.flags, call.out, call.out_size);
	case TAKE:
		return bucmaTakeDecisions((uint8_t *)call.in, call.in_size, call.out, call.out_size);
	default:
		return bucmaDeinit();
	}
}

static void *worker(void *arg) {
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		while (call.kind == IDLE)
			pthread_cond_wait(&cv, &mu);
		int kind = call.kind;
		pthread_mutex_unlock(&mu);
		uint8_t r = dispatch(kind);
		pthread_mutex_lock(&mu);
		call.result = r;
		call.kind = IDLE;
		call.done = 1;
		pthread_cond_broadcast(&cv);
	}
	return NULL;
}

static void start(void) {
	pthread_attr_t a;
	pthread_t t;
	if (pthread_attr_init(&a) != 0) {
		no_worker = 1;
		return;
	}
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 8 << 20);
	if (pthread_create(&t, &a, worker, NULL) != 0)
		no_worker = 1;
	pthread_attr_destroy(&a);
}

static uint8_t forward(int kind, const uint8_t *in, uint32_t in_size, uint32_t *flags, uint8_t **out, uint32_t *out_size) {
	pthread_once(&once, start);
	pthread_mutex_lock(&mu);
	call.in = in;
	call.in_size = in_size;
	call.flags = flags;
	call.out = out;
	call.out_size = out_size;
	if (no_worker) { // call from Batsim's thread, slower but correct
		uint8_t r = dispatch(kind);
		pthread_mutex_unlock(&mu);
		return r;
	}
	call.done = 0;
	call.kind = kind;
	pthread_cond_broadcast(&cv);
	while (!call.done)
		pthread_cond_wait(&cv, &mu);
	uint8_t r = call.result;
	pthread_mutex_unlock(&mu);
	return r;
}

uint8_t batsim_edc_init(const uint8_t *init_data, uint32_t init_size, uint32_t *flags, uint8_t **reply_data, uint32_t *reply_size) {
	return forward(INIT, init_data, init_size, flags, reply_data, reply_size);
}

uint8_t batsim_edc_take_decisions(const uint8_t *what_happened, uint32_t what_happened_size, uint8_t **decisions, uint32_t *decisions_size) {
	return forward(TAKE, what_happened, what_happened_size, NULL, decisions, decisions_size);
}

uint8_t batsim_edc_deinit(void) {
	return forward(DEINIT, NULL, 0, NULL, NULL, NULL);
}
