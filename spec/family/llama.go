package family

// registerLlama adds the Llama architectures (being written).
func registerLlama(f map[string]expander) {}
