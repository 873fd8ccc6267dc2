// reference.js - llama.cpp itself (the build node-llama-cpp 3.21.1 ships,
// pinned in package-lock.json) on a GGUF file, for tests/gguf_llamacpp.test.
//
//   node reference.mjs tokenize MODEL TEXT...  -> JSON [[ids of each text]]
//                                                 (no BOS/EOS added)
//   node reference.mjs probs MODEL ID...       -> JSON [[[v, p(next = v)], ...]
//                                                 after each prefix]
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
} else {
	console.error("usage: reference.mjs tokenize|probs MODEL ...");
	process.exit(2);
}
await model.dispose();
