module github.com/memplan/memplan

go 1.26.8

require (
	github.com/NVIDIA/go-nvml v0.13.4-1 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)
