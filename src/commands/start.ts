/** `hftgate start`: placeholder until the engine wiring lands; reports what exists. */
export async function run(_argv: string[]): Promise<number> {
  process.stdout.write("hftgate: the engine is not wired yet; see README status table\n");
  return 0;
}
