//go:build !unix

package main

import "os"

var sigterm = os.Kill // no SIGTERM: the controller stops at once
