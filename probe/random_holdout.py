#!/usr/bin/env python3
"""Write a hold-out set of model descriptions drawn at random from the kinds
of the public validation set (an MLP, GPT-2, ResNet-50, a Llama of
TinyLlama's shape), with random batch, length, precision, optimizer,
checkpointing and mode, so that the set is not chosen by whoever tunes the
estimator. The draw is seeded: the same seed writes the same files.

    python3 probe/random_holdout.py [--wide|--public] SEED COUNT OUTDIR

--wide draws from every family memplan expands (BERT, RoBERTa, ViT, Qwen2,
Qwen3, Mistral, Phi3, Gemma, the torchvision CNNs …) and from more
settings: fp16 autocast, the optimizer's implementation, eager attention,
inference with the KV cache, and the allocator's options.

Then write down the estimates before measuring (see examples/holdout*/
PREDICTED.tsv) and measure with probe/measure_all.sh.
"""
import os
import random
import sys

PRECISIONS = ['fp32', 'bf16', 'amp-bf16']
OPTIMIZERS = [('adamw', {}), ('adam', {}), ('sgd', {'momentum': 0.9}),
              ('adamw', {'optimizer_impl': 'fused'})]


def flow(d):
    """A YAML flow mapping of d (keys in order; strings bare)."""
    parts = []
    for k, v in d.items():
        if isinstance(v, dict):
            v = flow(v)
        elif isinstance(v, bool):
            v = 'true' if v else 'false'
        parts.append(f'{k}: {v}')
    return '{' + ', '.join(parts) + '}'


def mlp_model(d_in, hidden, d_out, bias, act):
    """Two linear layers around an activation, MSE against a target y."""
    return ('model:\n'
            '  inputs:\n'
            f'    x: {{shape: [batch, {d_in}], dtype: fp32}}\n'
            f'    y: {{shape: [batch, {d_out}], dtype: fp32}}\n'
            '  layers:\n'
            f'    - linear: {{in: {d_in}, out: {hidden}, bias: {str(bias).lower()}}}\n'
            f'    - {act}: {{}}\n'
            f'    - linear: {{in: {hidden}, out: {d_out}, bias: {str(bias).lower()}}}\n'
            '  loss: mse\n')


def mlp(r):
    d_in, hidden, d_out = r.choice([256, 512, 1000, 2048, 4096]), r.choice([1024, 4096, 5000, 8192, 16384]), r.choice([10, 256, 1000, 2048])
    bias = r.random() < 0.5
    act = r.choice(['relu', 'gelu'])
    batch = r.choice([16, 64, 256, 1024, 4096])
    return f'mlp-{d_in}x{hidden}x{d_out}', mlp_model(d_in, hidden, d_out, bias, act), {'batch_size': batch}, False


def gpt2_of(r, name, embd, layers, seqs):
    """GPT-2 of that width and depth, its dropouts on or off (drawn)."""
    cfg = {'vocab_size': 50257, 'n_positions': 1024, 'n_embd': embd, 'n_layer': layers, 'n_head': embd // 64}
    if r.random() < 0.5:
        cfg.update(resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
        name += '-nodrop'
    model = f'model: {{architecture: GPT2LMHeadModel, config: {flow(cfg)}}}\n'
    return name, model, {'batch_size': r.choice([1, 2, 4, 8, 16]), 'seq_len': r.choice(seqs)}, True


def gpt2(r):
    embd = r.choice([512, 768, 1024])
    layers = r.choice([4, 6, 8, 12])
    return gpt2_of(r, f'gpt2-l{layers}-e{embd}', embd, layers, [128, 256, 512, 1024])


def resnet50(r):
    model = 'model: {architecture: torchvision.resnet50}\n'
    return 'resnet50', model, {'batch_size': r.choice([8, 16, 32, 48, 64, 96, 128]), 'image_size': r.choice([160, 192, 224, 256])}, False


def tinyllama_of(r, name, layers):
    """A Llama of TinyLlama-1.1B's widths and the given depth."""
    cfg = {'vocab_size': 32000, 'hidden_size': 2048, 'intermediate_size': 5632, 'num_hidden_layers': layers,
           'num_attention_heads': 32, 'num_key_value_heads': 4, 'max_position_embeddings': 2048,
           'rms_norm_eps': '1.0e-05', 'tie_word_embeddings': False, 'use_cache': False}
    model = f'model: {{architecture: LlamaForCausalLM, config: {flow(cfg)}}}\n'
    return name, model, {'batch_size': r.choice([1, 2, 4, 8]), 'seq_len': r.choice([512, 1024, 2048])}, True


def llama(r):
    layers = r.choice([4, 8, 12, 22])
    return tinyllama_of(r, f'tinyllama-l{layers}', layers)


KINDS = [mlp, gpt2, resnet50, llama]


def mlp10m(r):
    """The public MLP: 1000 → 5000 → 1000, no biases, MSE."""
    return 'mlp10m', mlp_model(1000, 5000, 1000, False, 'relu'), {'batch_size': r.choice([16, 128, 256, 512, 2048])}, False


def gpt2small(r):
    """GPT-2 small as the public set builds it, dropout on or off."""
    return gpt2_of(r, 'gpt2', 768, 12, [256, 512, 1024])


def resnet50full(r):
    return 'resnet50', 'model: {architecture: torchvision.resnet50}\n', {'batch_size': r.choice([16, 32, 64, 128, 256]), 'image_size': 224}, False


def tinyllama(r):
    """TinyLlama-1.1B as the public set builds it."""
    return tinyllama_of(r, 'tinyllama', 22)


PUBLIC_KINDS = [mlp10m, gpt2small, resnet50full, tinyllama]


def decoder(arch, short, cfg):
    """A small decoder of one HF family: its depth and widths drawn."""
    def make(r):
        c = dict(cfg)
        c['num_hidden_layers'] = r.choice([2, 4, 6, 8])
        c['use_cache'] = False
        model = f'model: {{architecture: {arch}, config: {flow(c)}}}\n'
        return f'{short}-l{c["num_hidden_layers"]}', model, {'batch_size': r.choice([1, 2, 4, 8]), 'seq_len': r.choice([256, 512, 1024, 2048])}, True
    return make


def encoder(arch, short, longest=512):
    """A BERT-like masked LM with the class defaults."""
    def make(r):
        return short, f'model: {{architecture: {arch}}}\n', {'batch_size': r.choice([4, 8, 16, 32, 64]), 'seq_len': r.choice([128, 256, longest])}, True
    return make


def vision(arch, short, sizes, batches, ckptable=False):
    """A torchvision or HF vision model with its default config."""
    def make(r):
        return short, f'model: {{architecture: {arch}}}\n', {'batch_size': r.choice(batches), 'image_size': r.choice(sizes)}, ckptable
    return make


SMALL = {'vocab_size': 32000, 'hidden_size': 1024, 'intermediate_size': 2816, 'num_attention_heads': 16,
         'num_key_value_heads': 4, 'max_position_embeddings': 4096}
WIDE_KINDS = KINDS + [
    decoder('Qwen2ForCausalLM', 'qwen2-small', dict(SMALL, tie_word_embeddings=True)),
    decoder('Qwen3ForCausalLM', 'qwen3-small', dict(SMALL, head_dim=128, tie_word_embeddings=True)),
    decoder('MistralForCausalLM', 'mistral-small', dict(SMALL, tie_word_embeddings=False)),
    decoder('Phi3ForCausalLM', 'phi3-small', {'vocab_size': 32064, 'hidden_size': 1024, 'intermediate_size': 2816, 'num_attention_heads': 16, 'max_position_embeddings': 4096}),
    decoder('GemmaForCausalLM', 'gemma-small', {'vocab_size': 32000, 'hidden_size': 1024, 'intermediate_size': 4096, 'num_attention_heads': 8, 'num_key_value_heads': 1, 'head_dim': 128}),
    encoder('BertForMaskedLM', 'bert-base'),
    encoder('RobertaForMaskedLM', 'roberta-base', 510),  # positions start past the padding id
    vision('ViTForImageClassification', 'vit-base', [224], [8, 16, 32, 64], True),
    vision('torchvision.resnet18', 'resnet18', [160, 224], [16, 32, 64, 128]),
    vision('torchvision.resnet101', 'resnet101', [224], [8, 16, 32]),
    vision('torchvision.mobilenet_v2', 'mobilenet-v2', [224], [16, 32, 64, 128]),
]


ALLOCATOR = [('expandable', {'expandable_segments': True}), ('maxsplit64', {'max_split_size_mb': 64}),
             ('maxsplit256', {'max_split_size_mb': 256}), ('roundup4', {'roundup_power2_divisions': 4})]


def draw(r, wide=False, public=False):
    """One description: its name and its YAML text."""
    kinds = WIDE_KINDS if wide else PUBLIC_KINDS if public else KINDS
    base, model, training, ckptable = r.choice(kinds)(r)
    precision = r.choice(PRECISIONS + (['amp-fp16'] if wide else []))
    t = {}
    if r.random() < (0.25 if wide else 0.15):
        t['mode'] = 'inference'
        mode = 'infer'
        if wide and ckptable and 'seq_len' in training and 'use_cache: false' in model and r.random() < 0.5:
            model = model.replace('use_cache: false', 'use_cache: true')
            mode += '-cache'
    else:
        opt, extra = r.choice(OPTIMIZERS)
        extra = dict(extra)
        if wide and 'optimizer_impl' not in extra and opt != 'sgd' and r.random() < 0.25:
            extra['optimizer_impl'] = 'for-loop'
        t.update(optimizer=opt, **extra)
        mode = opt + ('-' + extra['optimizer_impl'] if extra.get('optimizer_impl') else '') + ('-mom' if 'momentum' in extra else '')
        if ckptable and r.random() < 0.3:
            t['activation_checkpointing'] = True
            mode += '-ckpt'
    if wide and 'seq_len' in training and 'config' in model and r.random() < 0.25:
        t['attention'] = 'eager'
        mode = 'eager-' + mode
    t.update(training)
    t['precision'] = precision
    if wide and r.random() < 0.25:
        tag, conf = r.choice(ALLOCATOR)
        t['allocator'] = conf
        mode += '-' + tag
    size = f'b{training["batch_size"]}' + (f'-s{training["seq_len"]}' if 'seq_len' in training else '') + (f'-img{training["image_size"]}' if 'image_size' in training else '')
    name = f'{base}-{precision}-{mode}-{size}'
    text = f'name: {name}\n{model}training: {flow(t)}\ngpu: h200\n'
    return name, text


def warn_if_taken(name, text, out):
    """Warn when another set under examples/ already has a case of this
    name that says something else: its measured files (named by the case)
    would be overwritten by this one's. Rename one of them before measuring."""
    examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'examples')
    for d in sorted(os.listdir(examples)):
        path = os.path.join(examples, d, name + '.yaml')
        if os.path.abspath(os.path.join(examples, d)) == os.path.abspath(out) or not os.path.exists(path):
            continue
        with open(path) as f:
            other = ''.join(l for l in f if not l.startswith('#'))
        if other.split() != text.split():
            print(f'warning: examples/{d}/{name}.yaml says something else under the same name; rename one before measuring', file=sys.stderr)


def main(argv):
    wide, public = '--wide' in argv, '--public' in argv
    argv = [a for a in argv if a not in ('--wide', '--public')]
    seed, count, out = int(argv[0]), int(argv[1]), argv[2]
    r = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    names = set()
    while len(names) < count:
        name, text = draw(r, wide, public)
        if name in names:
            continue
        names.add(name)
        warn_if_taken(name, text, out)
        with open(os.path.join(out, name + '.yaml'), 'w') as f:
            f.write(f'# drawn by probe/random_holdout.py{" --wide" if wide else " --public" if public else ""} (seed {seed}); predicted before measuring\n' + text)
    print('\n'.join(sorted(names)))


if __name__ == '__main__':
    main(sys.argv[1:])
