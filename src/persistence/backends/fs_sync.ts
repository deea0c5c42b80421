/**
 * fsync of a whole directory tree: PGlite runs with fsync off (platform.md
 * §4), so before journal segments are deleted its files are flushed here
 * after a `CHECKPOINT`.
 *
 * @module
 */

/** fsyncs every file below `dir`, then the directories themselves. */
export async function syncTree(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) await syncTree(path);
    else if (entry.isFile) await syncFile(path);
  }
  await syncFile(dir);
}

async function syncFile(path: string): Promise<void> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    return; // Removed meanwhile (PostgreSQL recycles files).
  }
  try {
    await file.sync();
  } catch {
    // Directories cannot be fsynced on every platform.
  } finally {
    file.close();
  }
}
