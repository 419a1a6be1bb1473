// Two functions paired by role: one saves what the other loads, by their names' verb and what
// follows it (dump/load, write/read, save_config/read_config, save_cassette/load_cassette,
// exportdb/importdb). A file two functions share only through a parameter's name is one file
// when a caller would pass it to both, as to such a pair. Functions whose names give them
// different jobs (an export and get_filehash(), both taking a "filepath") share the name only.

/** A function named for saving or loading something: the verb, then what (`save_state`, `load_state`, `dump`, `load`). */
export const PAIRED_NAME = /^_*(save|write|dump|store|put|export|persist|load|read|import|restore)_?(\w*)$/;

const SAVING_VERBS = new Set(['save', 'write', 'dump', 'store', 'put', 'export', 'persist']);

/** A name that says its function's job: a verb, then what (`get_filehash`, `importdb`, `save`). Wider than PAIRED_NAME. */
const JOB_NAME = /^_*(save|write|dump|store|put|export|persist|load|read|import|restore|get|open|parse|fetch)_?(\w*)$/;

function verbAndStem(name: string | undefined): { saves: boolean; stem: string } | undefined {
  const match = name ? JOB_NAME.exec(name) : null;
  return match ? { saves: SAVING_VERBS.has(match[1] ?? ''), stem: match[2] ?? '' } : undefined;
}

/**
 * The names say the two do different jobs: the writing function is named for saving some thing
 * (`write_string_to_file`, `dump_xml`), and the reading function is named for another job
 * (`get_filehash`, `importdb`, `save`), and neither it nor the call that reads (`config.read(path)`,
 * `read_config(path)`) is named for loading that thing. A bare verb (`dump`, `load`, `read`) names
 * no thing and pairs with any. No evidence, no difference: a writer not named for saving, or a
 * reading function whose name says no job (`resume`, `config_changed`).
 */
export function rolesDiffer(writer: string | undefined, readerFunction: string | undefined, readingCall: string | undefined): boolean {
  const saving = verbAndStem(writer);
  if (!saving?.saves) return false;
  const loadsIt = (name: string | undefined): boolean => {
    const loading = verbAndStem(name);
    return loading !== undefined && !loading.saves && (loading.stem === saving.stem || loading.stem === '' || saving.stem === '');
  };
  if (loadsIt(readerFunction) || loadsIt(readingCall)) return false;
  return verbAndStem(readerFunction) !== undefined;
}
