/** `hftgate bench [suite...]`: the same runner as `npm run bench`. */
export async function run(argv: string[]): Promise<number> {
  process.argv = [process.argv[0]!, "bench", ...argv];
  await import("../../bench/run.js");
  return 0;
}
