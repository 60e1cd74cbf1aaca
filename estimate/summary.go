package estimate

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/memplan/memplan/calibrate"
	"github.com/memplan/memplan/estimate/allocator"
	"github.com/memplan/memplan/spec"
)

// Unit sizes for people-facing notes.
const (
	mib = float64(1 << 20)
	mb  = 1e6
)

// result assembles the Result from a finished simulation.
func (s *sim) result() *Result {
	g, p := s.g, s.p
	r := &Result{
		Name:          s.m.Name,
		Version:       s.opt.Version,
		Model:         ModelSummary{Parameters: g.ParamCount(), ParameterBytes: g.ParamBytes()},
		GPU:           GPUSummary{Profile: p.Name, Name: p.GPUName, TotalBytes: p.TotalBytes, Calibrated: p.Calibrated},
		Iterations:    s.rp.iters,
		Timeline:      s.rp.events,
		StartSegments: s.rp.startSegments,
		Warnings:      []string{},
		Notes:         s.rp.notes,

		AllocRetries: s.a.Stats().NumAllocRetries,
		bound:        runBound{requestedPeak: s.rp.requestedPeak, outside: s.rp.outside},
	}
	outside := s.rp.outside // context, kernels and NCCL, as the replay's limit counts them
	var best *PhaseRun
	bestIt := 0
	maxReserved := s.rp.replacedReserved
	for i := range r.Iterations {
		for j := range r.Iterations[i].Phases {
			ph := &r.Iterations[i].Phases[j]
			if best == nil || ph.PeakAllocatedBytes > best.PeakAllocatedBytes {
				best, bestIt = ph, r.Iterations[i].Iteration
			}
			maxReserved = max(maxReserved, ph.PeakReservedBytes)
		}
	}
	if best != nil {
		r.Peak = Peak{AllocatedBytes: best.PeakAllocatedBytes, ReservedBytes: maxReserved, DeviceUsedBytes: maxReserved + outside, Iteration: bestIt, Phase: best.Phase, Op: best.PeakOp}
	}
	// What the description and profile warn of holds for every result;
	// searches and sweeps (PeaksOnly) pass it on too.
	inputWarnings := slices.Clone(g.Warnings)
	if !p.Calibrated {
		inputWarnings = append(inputWarnings, fmt.Sprintf("GPU profile %q is uncalibrated: its context and kernel figures are rules of thumb; run `memplan calibrate` on that GPU", p.Name))
	}
	if w := convWarning(s.g.Convs, p); w != "" {
		inputWarnings = append(inputWarnings, w)
	}
	if w := convExtrapolatedWarning(s.g.Convs); w != "" {
		inputWarnings = append(inputWarnings, w)
	}
	if w := s.ncclWarning(); w != "" {
		inputWarnings = append(inputWarnings, w)
	}
	inputWarnings = append(inputWarnings, s.rp.notes...)
	if s.opt.PeaksOnly {
		r.Warnings = append(r.Warnings, inputWarnings...)
		return r
	}
	r.Terms = s.terms(best)
	r.Layers = s.layers()
	r.Gaps = s.gaps(best, maxReserved, outside)
	r.Inputs = s.inputs()
	s.parallelResult(r, best) // per-rank terms and layout (parallel.go)
	r.Warnings = append(r.Warnings, inputWarnings...)
	if r.Peak.DeviceUsedBytes > p.TotalBytes && p.TotalBytes > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the predicted nvidia-smi peak %.1f GiB exceeds the GPU's %.1f GiB: this step would run out of memory", float64(r.Peak.DeviceUsedBytes)/(1<<30), float64(p.TotalBytes)/(1<<30)))
	}
	return r
}

// convWarning says when cuDNN workspaces were not measured on the
// profile's GPU: sized by the engine-class rule (a geometry no table
// holds), or taken from the built-in H200 table (as measured, or
// interpolated between its batches or image sizes) for another GPU. A
// workspace that is off by an engine can move reserved memory by a whole
// segment.
//
// On the H200 itself, workspaces interpolated between the table's image
// sizes are named too: the interpolation is exact for two thirds of them,
// within 5% for 85% (TestConvWorkspaceSizeInterpolation), not always.
func convWarning(convs []spec.ConvUse, p *calibrate.Profile) string {
	var rule, h200, between int
	for _, c := range convs {
		switch c.Source {
		case spec.ConvFromRule:
			rule++
		case spec.ConvFromH200Table:
			h200++
		case spec.ConvFromH200Sizes:
			h200++
			between++
		}
	}
	onH200 := strings.Contains(p.GPUName, "H200")
	switch {
	case rule > 0 && (onH200 || h200 == 0):
		return fmt.Sprintf("%d of %d convolution geometries have cuDNN workspaces no measurement covers (sized by the engine-class rule, which can miss the engine cuDNN picks): `memplan calibrate --convs FILE` on the GPU measures them", rule, len(convs))
	case rule > 0 || (h200 > 0 && !onH200):
		return fmt.Sprintf("%d of %d convolution geometries have cuDNN workspaces not measured on %s (%d from the H200 table, %d from the engine-class rule): `memplan calibrate --convs FILE` on that GPU measures them", rule+h200, len(convs), p.GPUName, h200, rule)
	case between > 0:
		return fmt.Sprintf("%d of %d convolution geometries have cuDNN workspaces interpolated between the image sizes the H200 table measured (exact for two thirds of such workspaces, within 5%% for 85%%: an engine can change between sizes): `memplan calibrate --convs FILE` measures them", between, len(convs))
	}
	return ""
}

// convExtrapolatedWarning names the convolutions whose batch is past the
// largest their table measured: the workspace follows the last measured
// line, and cuDNN can pick another engine there (measured, holdout38:
// VGG-16 under amp-bf16 at batch 2207 asked for 8.6 GB where the line from
// batch 256 gives 28.3 GB).
func convExtrapolatedWarning(convs []spec.ConvUse) string {
	n := 0
	for _, c := range convs {
		if c.Extrapolated {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d convolution geometries are at a batch past the largest their workspace table measured: their cuDNN workspaces are extrapolated, and cuDNN can pick another engine there: `memplan calibrate --convs FILE` measures them at this batch", n, len(convs))
}

func mibStr(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/mib) }

// terms lists every contribution to memory, included or not, with its bytes.
func (s *sim) terms(peak *PhaseRun) []Term {
	g, t, p := s.g, s.t, s.p
	pb := g.ParamBytes()
	var gradBytes, stateBytes int64
	if s.train {
		gradBytes = pb
		switch t.Optimizer {
		case spec.OptimizerAdam, spec.OptimizerAdamW:
			stateBytes = 2 * pb
		case spec.OptimizerSGD:
			if t.Momentum > 0 {
				stateBytes = pb
			}
		}
	}
	var inputBytes, bufferBytes int64
	for _, id := range g.Inputs {
		inputBytes += g.Tensors[id].Bytes
	}
	for _, id := range g.Resident {
		if !g.Tensors[id].RequiresGrad {
			bufferBytes += g.Tensors[id].Bytes
		}
	}
	at := func(role spec.Role) int64 {
		if peak == nil {
			return 0
		}
		return peak.PeakByRole[role.String()]
	}
	states := pb + gradBytes + stateBytes
	terms := []Term{
		{Name: "parameters", Bytes: pb, Included: true, Note: fmt.Sprintf("%d parameters, %s (%.1f MB)", g.ParamCount(), mibStr(pb), float64(pb)/mb)},
	}
	terms = append(terms,
		Term{Name: "buffers", Bytes: bufferBytes, Included: true, Note: "non-trainable module state (running statistics, position ids)"},
		Term{Name: "gradients", Bytes: gradBytes, Included: s.train, Note: noteIf(s.train, "one .grad per parameter, in the parameter dtype, freed by zero_grad(set_to_none=True)", "inference: no gradients")},
		Term{Name: "optimizer state", Bytes: stateBytes, Included: s.train && stateBytes > 0, Note: optimizerNote(t)},
		Term{Name: "model states (parameters + gradients + optimizer state)", Bytes: states, Included: true, Where: WhereSubtotal, Note: fmt.Sprintf("%s = %.1f MB, before activations and allocator rounding", mibStr(states), float64(states)/mb)},
		Term{Name: "inputs", Bytes: inputBytes, Included: true, Note: "the batch, resident on the GPU for the whole step"},
		Term{Name: "saved activations (at the peak)", Bytes: at(spec.RoleSaved), Included: s.train, Note: "tensors autograd keeps for backward, live at the overall peak"},
		Term{Name: "activations and their gradients (at the peak)", Bytes: at(spec.RoleActivation) + at(spec.RoleActivationGradient), Included: true, Note: "outputs not yet freed and gradient buffers of activations, live at the overall peak"},
		Term{Name: "autocast copies (at the peak)", Bytes: at(spec.RoleAutocastCopy), Included: true, Note: "low-precision casts of fp32 weights cached by autocast"},
		Term{Name: "temporaries (at the peak)", Bytes: at(spec.RoleTemporary), Included: true, Note: "op-internal buffers live at the peak (optimizer foreach copies, backward scratch)"},
		Term{Name: "library workspaces", Bytes: s.workspaceBytes(), Included: true, Note: fmt.Sprintf("cuBLAS %s per thread that runs GEMMs (main, autograd), cuBLASLt %s per thread that runs addmm with a bias (the autograd thread in a checkpoint's recompute)", mibStr(p.CublasWorkspaceBytes), mibStr(p.CublasLtWorkspaceBytes))},
	)
	terms = append(terms,
		Term{Name: "CUDA context", Bytes: p.ContextBytes, Included: true, Where: WhereOutside, Note: "outside the allocator: nvidia-smi shows it, memory_reserved() does not"},
		Term{Name: "library kernels", Bytes: s.kernelBytes(), Included: true, Where: WhereOutside, Note: noteIf(s.fused, "lazily loaded cuBLAS/cuDNN/PyTorch kernels, outside the allocator, with the module a cuDNN convolution or a 16-bit fused attention loads", "lazily loaded cuBLAS/PyTorch kernels, outside the allocator")},
		Term{Name: "NCCL buffers", Bytes: 0, Included: false, Where: WhereOutside, Note: "single-process estimate: no process group"},
		Term{Name: "other processes", Bytes: 0, Included: false, Where: WhereOutside, Note: "nvidia-smi's device total also counts other processes on the GPU"},
		Term{Name: "dataloader pinned memory", Bytes: 0, Included: false, Where: WhereHost, Note: "host memory, not on the GPU"},
		s.stepCounters(),
	)
	return terms
}

func (s *sim) workspaceBytes() int64 {
	var n int64
	for k, live := range s.wsLive {
		if live {
			n += s.a.BlockSize(s.wsBlock[k])
		}
	}
	return n
}

func (s *sim) kernelBytes() int64 { return s.p.KernelBytes.Step(s.train, s.fused) }

// loadsFusedModule reports whether a step runs a cuDNN convolution or a
// 16-bit fused attention kernel (flash, memory-efficient or cuDNN SDPA),
// either of which loads one more kernel module (KernelBytes.FusedTraining).
func loadsFusedModule(g *spec.Graph) bool {
	if len(g.Convs) > 0 {
		return true
	}
	for i := range g.Ops {
		op := &g.Ops[i]
		switch op.Kind {
		case "sdpa_flash", "sdpa_cudnn":
			return true
		case "sdpa_efficient":
			if len(op.Outputs) > 0 && g.Tensors[op.Outputs[0]].DType != spec.FP32 {
				return true
			}
		}
	}
	return false
}

func noteIf(c bool, yes, no string) string {
	if c {
		return yes
	}
	return no
}

func optimizerNote(t spec.Training) string {
	if t.Mode != spec.ModeTrain {
		return "inference: no optimizer"
	}
	switch t.Optimizer {
	case spec.OptimizerAdam, spec.OptimizerAdamW:
		extra := map[spec.OptimizerImpl]string{
			spec.ImplForeach: "; foreach adds one parameter-sized copy per dtype group inside step()",
			spec.ImplFused:   "; fused: no step temporaries",
			spec.ImplForLoop: "; for-loop: temporaries of one parameter at a time",
		}[t.OptimizerImpl]
		return fmt.Sprintf("%s: exp_avg + exp_avg_sq = 2 × parameters, created at the first step%s", t.Optimizer, extra)
	case spec.OptimizerSGD:
		if t.Momentum > 0 {
			return "sgd with momentum: one momentum buffer per parameter, created at the first step; updates in place (foreach, fused or for-loop)"
		}
		return "sgd without momentum: no state"
	}
	return "no optimizer"
}

// layers sums parameters, gradients and saved bytes per top-level layer.
func (s *sim) layers() []LayerRow {
	g := s.g
	rows := map[string]*LayerRow{}
	var order []string
	row := func(name string) *LayerRow {
		if r, ok := rows[name]; ok {
			return r
		}
		rows[name] = &LayerRow{Layer: name}
		order = append(order, name)
		return rows[name]
	}
	// seen marks, by tensor id, the parameters (seenParam) and the saved
	// storages (seenSaved) already counted.
	const seenParam, seenSaved = 1, 2
	seen := make([]uint8, len(g.Tensors))
	var r *LayerRow
	for i := range g.Ops {
		op := &g.Ops[i]
		if r == nil || r.Layer != op.Layer {
			r = row(op.Layer)
		}
		r.Ops++
		for _, p := range op.Params {
			if seen[p]&seenParam != 0 || !g.Tensors[p].RequiresGrad {
				continue
			}
			seen[p] |= seenParam
			r.Parameters += g.Tensors[p].Numel()
			r.ParameterBytes += g.Tensors[p].Bytes
			if s.train {
				r.GradientBytes += g.Tensors[p].Bytes
			}
		}
		if !s.train {
			continue
		}
		for _, sv := range op.Saved {
			st := g.Storage(sv)
			if seen[st]&seenSaved != 0 || g.Tensors[st].Role == spec.RoleParameter || g.Tensors[st].Role == spec.RoleInput {
				continue
			}
			seen[st] |= seenSaved
			r.SavedBytes += g.Tensors[st].Bytes
		}
	}
	out := make([]LayerRow, 0, len(order))
	for _, name := range order {
		out = append(out, *rows[name])
	}
	return out
}

// gaps explains allocated vs reserved vs nvidia-smi at the peak.
func (s *sim) gaps(peak *PhaseRun, reserved, outside int64) []Gap {
	if peak == nil {
		return nil
	}
	var gaps []Gap
	st := s.a.Stats()
	gaps = append(gaps, Gap{From: "allocated", To: "reserved", Bytes: reserved - peak.PeakAllocatedBytes,
		Cause: fmt.Sprintf("segments the allocator holds: blocks rounded to 512 B, large blocks handed out whole when the remainder is ≤ 1 MiB, small requests in 2 MiB and mid-size ones in 20 MiB segments, and free blocks cached for reuse (inactive split now %s over %d segments); empty_cache() would release only whole free segments", mibStr(st.InactiveSplit), st.Segments)})
	cause := fmt.Sprintf("outside the allocator: CUDA context %s and lazily loaded library kernels %s", mibStr(s.p.ContextBytes), mibStr(s.kernelBytes()))
	if n := s.ncclBytes(); n > 0 {
		cause = fmt.Sprintf("outside the allocator: CUDA context %s, lazily loaded library kernels %s and NCCL's communicator buffers %s", mibStr(s.p.ContextBytes), mibStr(s.kernelBytes()), mibStr(n))
	}
	gaps = append(gaps, Gap{From: "reserved", To: "nvidia-smi", Bytes: outside, Cause: cause})
	return gaps
}

func (s *sim) inputs() Inputs {
	t, p := s.t, s.p
	model := s.m.Architecture
	if model == "" {
		model = fmt.Sprintf("custom graph (%d layers)", len(s.m.Layers))
	}
	kv := []KeyValue{
		{"mode", t.Mode.String()}, {"batch_size", fmt.Sprint(t.BatchSize)},
	}
	if t.SeqLen > 0 {
		kv = append(kv, KeyValue{"seq_len", fmt.Sprint(t.SeqLen)})
	}
	if t.ImageSize > 0 {
		kv = append(kv, KeyValue{"image_size", fmt.Sprint(t.ImageSize)})
	}
	kv = append(kv, KeyValue{"precision", t.Precision.String()})
	if t.Mode == spec.ModeTrain {
		kv = append(kv, KeyValue{"optimizer", t.Optimizer.String()}, KeyValue{"optimizer_impl", t.OptimizerImpl.String()},
			KeyValue{"activation_checkpointing", fmt.Sprint(t.ActivationCheckpointing)})
		if t.Optimizer == spec.OptimizerSGD {
			kv = append(kv, KeyValue{"momentum", fmt.Sprint(t.Momentum)})
		}
	}
	kv = append(kv, KeyValue{"attention", t.Attention.String()}, KeyValue{"expandable_segments", fmt.Sprint(t.Allocator.ExpandableSegments)})
	if par := t.Parallel; par.Micro() > 1 && !par.ProcessGroup() {
		// one rank's gradient accumulation (a process group's layout is
		// added by parallelResult)
		kv = append(kv, KeyValue{"parallel", par.Layout()}, KeyValue{"global batch", fmt.Sprint(t.BatchSize * par.Micro())})
	}
	gpu := []KeyValue{
		{"profile", p.Name}, {"gpu", p.GPUName}, {"total memory", fmt.Sprintf("%.2f GiB", float64(p.TotalBytes)/(1<<30))},
		{"CUDA context", mibStr(p.ContextBytes)}, {"library kernels (training / inference)", mibStr(p.KernelBytes.Training) + " / " + mibStr(p.KernelBytes.Inference)},
		{"cuBLAS workspace", mibStr(p.CublasWorkspaceBytes)}, {"cuBLASLt workspace", mibStr(p.CublasLtWorkspaceBytes)},
		{"calibrated", fmt.Sprint(p.Calibrated)}, {"provenance", p.Provenance.Source},
	}
	return Inputs{File: s.m.File, Model: model, Training: kv, GPU: gpu, Calibrated: p.Calibrated}
}

// SortedRoles returns a PeakByRole map's keys in a stable order.
func SortedRoles(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return strings.Compare(keys[i], keys[j]) < 0
	})
	return keys
}

// stepCounters is the term of Adam's `step` tensors: on the GPU with the
// fused implementation (a 4-byte tensor per parameter, each a 512 B block),
// a CPU scalar otherwise.
func (s *sim) stepCounters() Term {
	t := s.t
	adam := t.Optimizer == spec.OptimizerAdam || t.Optimizer == spec.OptimizerAdamW
	switch {
	case !s.train || t.Optimizer == spec.OptimizerNone:
		return Term{Name: "optimizer step counters", Note: "no optimizer step"}
	case !adam:
		return Term{Name: "optimizer step counters", Note: "SGD keeps no step counter"}
	case t.OptimizerImpl != spec.ImplFused:
		return Term{Name: "optimizer step counters", Note: "foreach/for-loop keep `step` as a CPU scalar"}
	}
	n := int64(len(s.optState) / 3) // step, exp_avg, exp_avg_sq per parameter (optimizerStep)
	return Term{Name: "optimizer step counters", Bytes: n * allocator.RoundSize(4, s.a.Config()), Included: true,
		Note: fmt.Sprintf("fused: a 4-byte `step` tensor per parameter on the GPU, each a 512 B block (%d)", n)}
}
