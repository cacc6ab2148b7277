package main

import (
	"flag"
	"fmt"
	"net/http"
	"time"
)

func runWait(args []string) error {
	fs := flag.NewFlagSet("wait", flag.ContinueOnError)
	timeout := fs.Duration("timeout", 60*time.Second, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	deadline := time.Now().Add(*timeout)
	client := &http.Client{Timeout: 2 * time.Second}
	for _, u := range fs.Args() {
		for {
			resp, err := client.Get(u)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
				err = fmt.Errorf("status %s", resp.Status)
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s did not answer 200 within %s: %v", u, *timeout, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	return nil
}
