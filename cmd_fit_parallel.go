package main

import (
	"fmt"
	"strconv"

	"github.com/memplan/memplan/report"
	"github.com/memplan/memplan/spec"
)

// maxFitRanks bounds the search for the number of data-parallel ranks.
const maxFitRanks = 1024

// fitParallel returns the lines of the data-parallel table, one per
// sharding strategy: the per-rank nvidia-smi peak at the described data
// ranks (at least 8 when the description has one rank) and the fewest data
// ranks (powers of two) whose per-rank step fits limit. Inference has none.
func fitParallel(p *planner, limit int64) []func() (string, error) {
	t := p.base.Training
	if t.Mode != spec.ModeTrain {
		return nil
	}
	data := t.Parallel.DataRanks()
	if data == 1 {
		data = 8
	}
	var lines []func() (string, error)
	for _, sh := range []string{"none", "zero1", "zero2", "fsdp"} {
		lines = append(lines, func() (string, error) { return shardingLine(p, limit, sh, data), nil })
	}
	return lines
}

// shardingLine is the data-parallel table's line for one sharding strategy.
func shardingLine(p *planner, limit int64, sh string, data int64) string {
	set := func(n int64) [][2]string {
		return [][2]string{{"training.parallel.sharding", sh}, {"training.parallel.data", strconv.FormatInt(n, 10)}}
	}
	r, err := p.estimate(set(data)...)
	if err != nil {
		return fmt.Sprintf("%s\t—\t—\t%s\n", sh, firstLine(err))
	}
	fewest := "none up to " + strconv.Itoa(maxFitRanks)
	start := int64(2) // sharding needs two ranks or more
	if sh == "none" {
		start = 1
	}
	for n := start; n <= maxFitRanks; n *= 2 {
		ok, _, err := p.fits(limit, set(n)...)
		if err != nil {
			fewest = firstLine(err)
			break
		}
		if ok {
			fewest = strconv.FormatInt(n, 10)
			break
		}
		if sh == "none" {
			// DDP replicates everything: more ranks never shrink a rank's step.
			fewest = "none (DDP keeps full states on every rank)"
			break
		}
	}
	return fmt.Sprintf("%s\t%s\titer %d %s\t%s\n", sh, report.GiB(r.Peak.DeviceUsedBytes), r.Peak.Iteration, r.Peak.Phase, fewest)
}
