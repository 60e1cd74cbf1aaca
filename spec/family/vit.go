package family

// registerViT adds the ViT architectures (being written).
func registerViT(f map[string]expander) {}
