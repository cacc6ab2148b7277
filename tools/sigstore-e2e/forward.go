package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

func runForward(args []string) error {
	fs := flag.NewFlagSet("forward", flag.ContinueOnError)
	netns := fs.String("netns", "", "network namespace file, e.g. /run/netns/NAME (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *netns == "" || fs.NArg() == 0 {
		return fmt.Errorf("want -netns FILE and at least one ADDR")
	}
	target, err := os.Open(*netns)
	if err != nil {
		return err
	}
	self, err := os.Open("/proc/self/ns/net")
	if err != nil {
		return err
	}
	dial := func(addr string) (net.Conn, error) { return dialIn(target, self, addr) }
	errc := make(chan error, fs.NArg())
	for _, addr := range fs.Args() {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return err
		}
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return fmt.Errorf("%q: want a loopback IP address", addr)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		go func() { errc <- serveForward(ln, addr, dial) }()
	}
	return <-errc
}

func serveForward(ln net.Listener, addr string, dial func(string) (net.Conn, error)) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go func() {
			defer c.Close()
			var up net.Conn
			var err error
			// The service may still be starting: retry for a few seconds.
			for i := 0; i < 50; i++ {
				if up, err = dial(addr); err == nil {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "sigstore-e2e forward: %s: %v\n", addr, err)
				return
			}
			defer up.Close()
			done := make(chan struct{}, 2)
			go func() { io.Copy(up, c); closeWrite(up); done <- struct{}{} }()
			go func() { io.Copy(c, up); closeWrite(c); done <- struct{}{} }()
			<-done
			<-done
		}()
	}
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
}

// dialIn connects to addr inside the namespace target: the socket is made
// on an OS thread switched into target, which is switched back before it
// runs anything else. A socket stays in the namespace it was made in.
func dialIn(target, self *os.File, addr string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		if err := setns(target); err != nil {
			runtime.UnlockOSThread()
			ch <- result{nil, fmt.Errorf("setns: %w", err)}
			return
		}
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err := setns(self); err != nil {
			// The thread stays locked and dies with this goroutine.
			ch <- result{c, err}
			return
		}
		runtime.UnlockOSThread()
		ch <- result{c, err}
	}()
	r := <-ch
	return r.c, r.err
}

func setns(f *os.File) error {
	return unix.Setns(int(f.Fd()), unix.CLONE_NEWNET)
}
