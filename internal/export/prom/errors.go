package prom

import "fmt"

func errorf(format string, args ...any) error { return fmt.Errorf("prom: "+format, args...) }
