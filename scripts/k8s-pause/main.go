// pause: the infrastructure ("sandbox") container of a pod for the test kubelet of
// scripts/k8s-setup.sh. It holds the pod's namespaces, reaps orphaned children, and exits 0 on
// SIGTERM or SIGINT. Built statically (CGO_ENABLED=0) by `scripts/k8s-setup.sh kubelet` and
// imported as iris-test/pause:3.2, because no registry (and so no k8s.gcr.io/pause) is reachable.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	child := make(chan os.Signal, 16)
	signal.Notify(child, syscall.SIGCHLD)
	for {
		select {
		case <-stop:
			os.Exit(0)
		case <-child:
			for {
				var status syscall.WaitStatus
				pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
		}
	}
}
