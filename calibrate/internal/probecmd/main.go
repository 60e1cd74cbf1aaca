// Command probecmd runs the calibration probe on its own, for carrying a
// cgo-built binary to a GPU machine before `memplan calibrate` exists:
//
//	probecmd [-device N] [-o FILE]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/memplan/memplan/calibrate"
)

func main() {
	dev := flag.Int("device", 0, "CUDA device ordinal")
	out := flag.String("o", "", "write the profile YAML here (default: stdout)")
	flag.Parse()
	p, err := calibrate.Run(calibrate.Options{Device: *dev, Output: *out}, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "probecmd:", err)
		os.Exit(1)
	}
	if *out != "" {
		if err := calibrate.WriteFile(*out, p); err != nil {
			fmt.Fprintln(os.Stderr, "probecmd:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "wrote", *out)
		return
	}
	data, err := calibrate.Marshal(p)
	if err != nil {
		fmt.Fprintln(os.Stderr, "probecmd:", err)
		os.Exit(1)
	}
	os.Stdout.Write(data)
}
