// The faults of the process that loads the library (Batsim's), handled as
// they would be without it.
//
// When the library is loaded, the Go runtime installs its handlers of the
// synchronous signals (SIGSEGV, SIGBUS, SIGFPE), saving the handlers the
// process had; a fault in C code is forwarded to the saved handler, called
// from Go's handler as a plain function. The kernel's own call of a handler
// does more: with SA_RESETHAND it restores the default action first, and a
// handler written for that (SimGrid's prints "Segmentation fault." and
// raises the signal again) relies on it to die. Called by Go, such a
// handler's raise finds Go's handler still in place, which forwards it
// again: an endless stream of messages instead of the process's death.
//
// So before the Go runtime starts (a constructor of a higher priority than
// the runtime's own), each of these signals that has a handler gets a
// forwarder of ours, which Go saves in its place: it applies the saved
// handler's SA_RESETHAND as the kernel does, then calls it. The faults of
// Go code stay Go's (a nil dereference is a panic, recovered into a
// failure status).
#include <signal.h>
#include <stddef.h>
#include <string.h>

static const int forwarded[] = {SIGSEGV, SIGBUS, SIGFPE};

enum { NSIGNALS = sizeof forwarded / sizeof forwarded[0] };

static struct sigaction before[NSIGNALS];

static int slot(int sig) {
	for (int i = 0; i < NSIGNALS; i++)
		if (forwarded[i] == sig)
			return i;
	return -1;
}

static int is_function(const struct sigaction *a) {
	if (a->sa_flags & SA_SIGINFO)
		return a->sa_sigaction != NULL;
	return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

static void forward(int sig, siginfo_t *info, void *ctx) {
	int i = slot(sig);
	if (i < 0)
		return;
	struct sigaction a = before[i];
	if (a.sa_flags & SA_RESETHAND) {
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		sigaction(sig, &dfl, NULL);
	}
	if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, info, ctx);
	else
		a.sa_handler(sig);
}

__attribute__((constructor(101))) static void install_forwarders(void) {
	for (int i = 0; i < NSIGNALS; i++) {
		struct sigaction cur;
		if (sigaction(forwarded[i], NULL, &cur) != 0 || !is_function(&cur))
			continue;
		before[i] = cur;
		struct sigaction fw;
		memset(&fw, 0, sizeof fw);
		fw.sa_sigaction = forward;
		fw.sa_flags = SA_SIGINFO | SA_ONSTACK | (cur.sa_flags & SA_NODEFER);
		fw.sa_mask = cur.sa_mask;
		sigaction(forwarded[i], &fw, NULL);
	}
}
