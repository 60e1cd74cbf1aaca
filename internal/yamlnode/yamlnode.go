// Package yamlnode holds small helpers over go.yaml.in/yaml/v3 nodes shared
// by the strict decoders of model descriptions and GPU profiles.
package yamlnode

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Describe names what a node holds for an error message: "a mapping",
// "a list", "null" or the quoted scalar.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}
