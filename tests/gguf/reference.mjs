// reference.js - llama.cpp itself (the build node-llama-cpp 3.21.1 ships,
// pinned in package-lock.json) on a GGUF file, for tests/gguf_llamacpp.test.
//
//   node reference.mjs tokenize MODEL TEXT...  -> JSON [[ids of each text]]
//                                                 (no BOS/EOS added)
//   node reference.mjs probs MODEL ID...       -> JSON [[[v, p(next = v)], ...]
//                                                 after each prefix]
//   node reference.mjs greedy MODEL N ID...    -> JSON [[id, p, p of the second], ...]
//                                                 N greedy steps after the ids
//
// The probabilities are llama.cpp's softmax of the logits at every position
// (one sequence, CPU only, one thread, batch = the whole input).
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const [mode, modelPath, ...rest] = process.argv.slice(2);
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath, gpuLayers: 0});
if (mode === "tokenize") {
	console.log(JSON.stringify(rest.map(t => Array.from(model.tokenize(t, false)))));
} else if (mode === "probs") {
	const ids = rest.map(Number);
	const ctx = await model.createContext({contextSize: 256, batchSize: 256, threads: 1});
	const seq = ctx.getSequence();
	const out = await seq.controlledEvaluate(ids.map(t => [t, {generateNext: {probabilities: true}}]));
	console.log(JSON.stringify(out.map(o => Array.from(o.next.probabilities.entries()))));
	await ctx.dispose();
} else if (mode === "greedy") {
	// greedy N ID...: N tokens after the prompt, each llama.cpp's argmax,
	// as [[id, p(id), p(second best)], ...]
	const [n, ...prompt] = rest.map(Number);
	const ctx = await model.createContext({contextSize: 256, batchSize: 256, threads: 1});
	const seq = ctx.getSequence();
	const out = [];
	let feed = prompt;
	for (let k = 0; k < n; k++) {
		const r = await seq.controlledEvaluate(feed.map((t, i) =>
			i === feed.length - 1 ? [t, {generateNext: {probabilities: true}}] : t));
		const p = Array.from(r[r.length - 1].next.probabilities.entries())
			.sort((a, b) => b[1] - a[1]);
		out.push([p[0][0], p[0][1], p.length > 1 ? p[1][1] : 0]);
		feed = [p[0][0]];
	}
	console.log(JSON.stringify(out));
	await ctx.dispose();
} else {
	console.error("usage: reference.mjs tokenize|probs MODEL ...");
	process.exit(2);
}
await model.dispose();
