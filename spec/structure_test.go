package spec

import (
	"reflect"
	"slices"
	"testing"
)

// TestSameStructureFields fails when Tensor, Op or Graph gains a field that
// SameStructure neither compares nor leaves out on purpose: a field that
// can change what a step's timeline requests must be compared, or a
// recorded timeline would be replayed on a graph it does not fit.
func TestSameStructureFields(t *testing.T) {
	sorted := map[reflect.Type][]string{
		reflect.TypeFor[Tensor](): {
			// compared
			"ID", "Name", "DType", "Role", "Op", "RequiresGrad", "Alias", "Cached", "ConvPlan", "HeldUntil",
			// compared for resident tensors; otherwise rank and zero only
			"Shape", "Bytes",
		},
		reflect.TypeFor[Op](): {
			"Name", "Kind", "Layer", "Block", "Inputs", "Params", "Outputs", "Extra", "Saved", "Temps",
			"BackwardTemps", "BackwardTempsFreedBy", "ReduceTemps", "ReducedParams", "ReducedInputs",
			"GradInputs", "Matmul", "NoGrad", "Flow", "WeightGradFirst", "GradInputViews", "WeightGradView",
			"GradProducts", "InputGradsReversed", "ExtraAfter", "TempsFirst", "BackwardTempsFirst",
			"ReduceAfterTemps", "BackwardScript",
		},
		reflect.TypeFor[Graph](): {
			"Tensors", "Ops", "Params", "Resident", "Inputs", "Loss", "LossGrad", "Outputs", "Blocks", "BackwardScripts",
			// left out: never read by the timeline (an estimate reads them from its own graph)
			"Convs", "Warnings",
		},
	}
	for typ, names := range sorted {
		for i := range typ.NumField() {
			if f := typ.Field(i).Name; !slices.Contains(names, f) {
				t.Errorf("%s.%s: new field; compare it in SameStructure (or say why not) and list it here", typ.Name(), f)
			}
		}
	}
}

// TestSameStructure checks what SameStructure tells apart.
func TestSameStructure(t *testing.T) {
	graph := func() *Graph {
		return &Graph{
			Tensors: []Tensor{
				{ID: 0, Name: "w", Shape: []int64{4, 4}, Bytes: 64, Role: RoleParameter, Op: -1, RequiresGrad: true, Alias: NoTensor},
				{ID: 1, Name: "x", Shape: []int64{2, 8, 4}, Bytes: 256, Role: RoleInput, Op: -1, Alias: NoTensor},
				{ID: 2, Name: "y", Shape: []int64{2, 8, 4}, Bytes: 256, Role: RoleActivation, Op: 0, Alias: NoTensor},
			},
			Ops:      []Op{{Name: "linear", Kind: "linear", Inputs: []TensorID{1}, Params: []TensorID{0}, Outputs: []TensorID{2}, Saved: []TensorID{1}}},
			Params:   []TensorID{0},
			Resident: []TensorID{0},
			Inputs:   []TensorID{1},
			Loss:     NoTensor, LossGrad: NoTensor,
		}
	}
	a := graph()
	resized := graph()
	resized.Tensors[1].Shape, resized.Tensors[1].Bytes = []int64{3, 5, 4}, 240
	resized.Tensors[2].Shape, resized.Tensors[2].Bytes = []int64{3, 5, 4}, 240
	resized.Warnings = []string{"only reports read this"}
	if !SameStructure(a, resized) {
		t.Error("a graph with another batch and sequence length: not the same structure")
	}
	for name, change := range map[string]func(g *Graph){
		"a parameter resized":       func(g *Graph) { g.Tensors[0].Shape, g.Tensors[0].Bytes = []int64{8, 2}, 64 },
		"an activation made empty":  func(g *Graph) { g.Tensors[2].Bytes = 0 },
		"an activation of new rank": func(g *Graph) { g.Tensors[2].Shape = []int64{16, 4} },
		"another op kind":           func(g *Graph) { g.Ops[0].Kind = "matmul" },
		"another saved tensor":      func(g *Graph) { g.Ops[0].Saved = []TensorID{2} },
		"a tensor renamed":          func(g *Graph) { g.Tensors[2].Name = "z" },
		"another role":              func(g *Graph) { g.Tensors[2].Role = RoleSaved },
		"an extra op":               func(g *Graph) { g.Ops = append(g.Ops, Op{Name: "relu"}) },
		"a backward script":         func(g *Graph) { g.BackwardScripts = [][]BackwardStep{{{Kind: StepMakeTemp}}} },
		"the loss":                  func(g *Graph) { g.Loss = 2 },
	} {
		b := graph()
		change(b)
		if SameStructure(a, b) {
			t.Errorf("%s: the same structure", name)
		}
	}
}
