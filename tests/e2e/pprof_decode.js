// pprof_decode.js FILE - decode a gzipped pprof profile with the npm
// pprof-format package (independent of vigil's protobuf-c encoder) and
// print what a pprof user sees, as one JSON object: sample types, the
// total, each function's flat (leaf) and cumulative values, the stacks
// (root first, "a;b;c": value) and the mappings with their build-ids;
// then the sum of every value type ("totals"), the period with its
// type and the profile's comments.
"use strict";
const fs = require("fs");
const path = require("path");
const zlib = require("zlib");
const root = path.resolve(__dirname, "..", "..");
const build = process.env.VIGIL_BUILD || path.join(root, "build");
const { Profile } = require(path.join(build, "npm", "node_modules", "pprof-format"));

const raw = fs.readFileSync(process.argv[2]);
if (raw[0] !== 0x1f || raw[1] !== 0x8b) {
  console.error("not gzip");
  process.exit(1);
}
const p = Profile.decode(zlib.gunzipSync(raw));
const str = (i) => p.stringTable.strings[Number(i)];
const funcs = new Map(p.function.map((f) => [Number(f.id), f]));
const locs = new Map(p.location.map((l) => [Number(l.id), l]));
const fname = (lid) => str(funcs.get(Number(locs.get(Number(lid)).line[0].functionId)).name);
const out = {
  sample_types: p.sampleType.map((t) => str(t.type) + "/" + str(t.unit)),
  total: 0, flat: {}, cum: {}, stacks: {}, functions: {}, mappings: [],
  totals: p.sampleType.map(() => 0),
  period: Number(p.period),
  period_type: p.periodType ? str(p.periodType.type) + "/" + str(p.periodType.unit) : null,
  comments: (p.comment || []).map(str),
};
for (const s of p.sample) {
  const v = Number(s.value[0]);
  const names = s.locationId.map(fname);
  out.total += v;
  s.value.forEach((x, i) => { out.totals[i] += Number(x); });
  out.flat[names[0]] = (out.flat[names[0]] || 0) + v;
  for (const n of new Set(names)) out.cum[n] = (out.cum[n] || 0) + v;
  const key = names.slice().reverse().join(";");
  out.stacks[key] = (out.stacks[key] || 0) + v;
}
for (const f of p.function) {
  out.functions[str(f.name)] = str(f.filename) + ":" + Number(f.startLine);
}
for (const m of p.mapping) {
  out.mappings.push({ file: path.basename(str(m.filename)), build_id: str(m.buildId) });
}
console.log(JSON.stringify(out));
