// faulter loads a decision component library as Batsim does (dlopen), starts
// it with batsim_edc_init, then dereferences a null pointer in its own C code.
//
//	faulter LIBRARY handler|none
//
// With "handler", a fault handler like SimGrid's is installed before the
// library is loaded: on its own stack, reset to the default action when
// called (SA_RESETHAND), it writes one line and raises the signal again.
// Either way the process must die of the fault, the handler's line written
// once.
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char altstack[1 << 16];

static void on_fault(int sig, siginfo_t *info, void *ctx) {
	(void)info;
	(void)ctx;
	static const char line[] = "faulter: fault handler called\n";
	ssize_t n = write(2, line, sizeof line - 1);
	(void)n;
	raise(sig);
}

static void install(void) {
	stack_t st;
	memset(&st, 0, sizeof st);
	st.ss_sp = altstack;
	st.ss_size = sizeof altstack;
	if (sigaltstack(&st, NULL) != 0) {
		perror("sigaltstack");
		exit(3);
	}
	struct sigaction a;
	memset(&a, 0, sizeof a);
	a.sa_sigaction = on_fault;
	a.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
	sigemptyset(&a.sa_mask);
	if (sigaction(SIGSEGV, &a, NULL) != 0 || sigaction(SIGBUS, &a, NULL) != 0) {
		perror("sigaction");
		exit(3);
	}
}

typedef uint8_t (*init_fn)(const uint8_t *, uint32_t, uint32_t *, uint8_t **, uint32_t *);

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: faulter LIBRARY handler|none\n");
		return 3;
	}
	if (strcmp(argv[2], "handler") == 0)
		install();
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 3;
	}
	init_fn init = (init_fn)dlsym(lib, "batsim_edc_init");
	if (init == NULL) {
		fprintf(stderr, "dlsym: %s\n", dlerror());
		return 3;
	}
	static const char data[] = "{\"policy\": \"fcfs\"}";
	uint32_t flags = 0, size = 0;
	uint8_t *reply = NULL;
	if (init((const uint8_t *)data, sizeof data - 1, &flags, &reply, &size) != 0) {
		fprintf(stderr, "batsim_edc_init failed\n");
		return 3;
	}
	fprintf(stderr, "faulter: initialized\n");
	volatile int *null = NULL;
	*null = 1;
	fprintf(stderr, "faulter: survived the fault\n");
	return 4;
}
