import { readBatchFile } from "./src/payouts/batch-file.js";

const files: Record<string, string> = {
  blank: "phone,amount\n" + "\n".repeat(999_000),
  blank2: "phone,amount\n" + "\n".repeat(999_000),
  spaces: "phone,amount\n" + "  \n".repeat(330_000),
  headerlong: ",".repeat(999_000) + "\n",
};
for (const [name, body] of Object.entries(files)) {
  const bytes = new TextEncoder().encode(body);
  const gaps: string[] = [];
  let last = performance.now();
  let stop = false;
  const t = performance.now();
  const tick = () => {
    const n = performance.now();
    if (n - last > 8) gaps.push(`${(last - t).toFixed(0)}+${(n - last).toFixed(0)}`);
    last = n;
    if (!stop) setImmediate(tick);
  };
  setImmediate(tick);
  await new Promise((r) => setTimeout(r, 5));
  const r = await readBatchFile(bytes);
  stop = true;
  console.log(
    name,
    JSON.stringify(r).slice(0, 60),
    Math.round(performance.now() - t),
    "ms; gaps",
    gaps.join(" "),
  );
}
