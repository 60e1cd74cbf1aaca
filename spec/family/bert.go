package family

// registerBERT adds the BERT architectures (being written).
func registerBERT(f map[string]expander) {}
