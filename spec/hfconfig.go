package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/memplan/memplan/internal/readlimit"
	"github.com/memplan/memplan/internal/textpos"
)

// loadHFConfig reads model.hf_config (a transformers config.json), relative
// to the description's folder, into Architecture and Config. JSON is read with
// the YAML decoder so that errors inside it carry file:line:col too.
func (m *Model) loadHFConfig() error {
	if m.HFConfig == "" {
		return nil
	}
	at := m.At("model.hf_config")
	path := m.HFConfig
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(m.File), path)
	}
	data, err := readlimit.File(path, maxFileBytes)
	if tooLarge := (*readlimit.TooLargeError)(nil); errors.As(err, &tooLarge) {
		return at.Errorf("model.hf_config: %s is larger than %d bytes (allowed: a transformers config.json of at most that)", m.HFConfig, maxFileBytes)
	}
	if err != nil {
		return at.Errorf("model.hf_config: cannot read %s: %v (allowed: a path to a transformers config.json, relative to this file)", m.HFConfig, unwrapPathError(err))
	}
	// transformers reads it with json.load: what YAML would also take (a
	// trailing comma, a comment, an unquoted key) is refused as Python would.
	dec := json.NewDecoder(bytes.NewReader(pythonConstants(data)))
	dec.UseNumber() // syntax only: 1e400 is Python's inf, not an error
	var parsed any
	offset, msg := int64(0), ""
	var se *json.SyntaxError
	switch err := dec.Decode(&parsed); {
	case errors.As(err, &se):
		offset, msg = se.Offset, se.Error()
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		offset, msg = int64(len(data)), "unexpected end of JSON input"
	case err != nil:
		offset, msg = 1, err.Error()
	case dec.More():
		at := dec.InputOffset()
		for at < int64(len(data)) && strings.ContainsRune(" \t\r\n", rune(data[at])) {
			at++
		}
		offset, msg = at+1, "more after the JSON object"
	}
	if msg == "" && !utf8.Valid(data) {
		// json.load decodes the file as UTF-8 first.
		valid := 0
		for r, size := utf8.DecodeRune(data); r != utf8.RuneError || size > 1; r, size = utf8.DecodeRune(data[valid:]) {
			valid += size
		}
		offset, msg = int64(valid)+1, "invalid UTF-8"
	}
	if msg != "" {
		line, col := lineCol(data, offset)
		return Pos{path, line, col}.Errorf("%s is not valid JSON: %s (allowed: JSON, as transformers reads it with json.load)", filepath.Base(path), msg)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return yamlError(path, data, err)
	}
	d := &decoder{file: path}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if err := d.checkTree(root, 0); err != nil {
		return err
	}
	v, err := d.value(root)
	if err != nil {
		return err
	}
	cfg, ok := v.V.(map[string]Value)
	if !ok {
		return Pos{path, 1, 1}.Errorf("config.json is not a JSON object (allowed: a transformers config.json)")
	}
	archs, ok := cfg["architectures"]
	list, isList := archs.V.([]Value)
	if !ok || !isList || len(list) == 0 {
		return Pos{path, 1, 1}.Errorf("config.json has no \"architectures\" list (allowed: a transformers config.json naming its model class)")
	}
	name, isStr := list[0].V.(string)
	if !isStr {
		return list[0].Pos.Errorf("architectures[0] is not a class name")
	}
	m.Architecture = name
	m.Pos["model.architecture"] = list[0].Pos
	delete(cfg, "architectures")
	m.Config = cfg
	return nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// lineCol turns a json error's offset (the bytes read, the culprit's
// included) into a 1-based line and column.
func lineCol(data []byte, offset int64) (line, col int) {
	return textpos.LineCol(data, offset-1)
}

// pythonConstants returns data with the constants Python's json.load
// accepts and JSON does not (NaN, Infinity, -Infinity) outside strings
// written as 0 padded with spaces, offsets kept, for the validity check.
func pythonConstants(data []byte) []byte {
	var out []byte
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == '"':
			inString = true
			continue
		}
		for _, tok := range []string{"NaN", "Infinity", "-Infinity"} {
			if bytes.HasPrefix(data[i:], []byte(tok)) {
				if out == nil {
					out = bytes.Clone(data)
				}
				out[i] = '0'
				for j := 1; j < len(tok); j++ {
					out[i+j] = ' '
				}
				i += len(tok) - 1
				break
			}
		}
	}
	if out == nil {
		return data
	}
	return out
}
