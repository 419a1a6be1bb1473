// Two functions paired by role: one saves what the other loads, by their names' verb and what
// follows it (dump/load, write/read, save_config/read_config, save_cassette/load_cassette,
// exportdb/importdb). A file two functions share only through a parameter's name is one file
// when a caller would pass it to both, as to such a pair. Functions whose names give them
// different jobs (an export and get_filehash(), both taking a "filepath") share the name only,
// unless the reader parses what it reads: then it loads the file, whatever it is named for.
import type { PyModule, SyntaxNode } from '../model.ts';
import { listFunctions } from '../functions.ts';
import { scopeFacts } from '../module-facts.ts';

/** A function named for saving or loading something: the verb, then what (`save_state`, `load_state`, `dump`, `load`). */
export const PAIRED_NAME = /^_*(save|write|dump|store|put|export|persist|load|read|import|restore)_?(\w*)$/;

const SAVING_VERBS = new Set(['save', 'write', 'dump', 'store', 'put', 'export', 'persist']);

/** A name that says its function's job: a verb, then what (`get_filehash`, `importdb`, `save`). Wider than PAIRED_NAME. */
const JOB_NAME = /^_*(save|write|dump|store|put|export|persist|load|read|import|restore|get|open|parse|fetch)_?(\w*)$/;

function verbAndStem(name: string | undefined): { saves: boolean; stem: string } | undefined {
  const match = name ? JOB_NAME.exec(name) : null;
  return match ? { saves: SAVING_VERBS.has(match[1] ?? ''), stem: match[2] ?? '' } : undefined;
}

/** `json` and `json_file`, `config` and `config`, `` and anything: one stem's `_`-separated words begin the other's. */
function stemsMatch(one: string, other: string): boolean {
  const [shorter, longer] = one.length <= other.length ? [one, other] : [other, one];
  return shorter === '' || longer === shorter || longer.startsWith(`${shorter}_`);
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
    return loading !== undefined && !loading.saves && stemsMatch(loading.stem, saving.stem);
  };
  if (loadsIt(readerFunction) || loadsIt(readingCall)) return false;
  return verbAndStem(readerFunction) !== undefined;
}

/**
 * Calls that parse what was read: json/pickle/yaml/toml/marshal/plistlib loads, csv readers, configparser's
 * read_file/read_string, XML and HTML parsers, struct.unpack, ast.literal_eval. A reader that calls one needs
 * the file whole, so a torn one harms it whatever its name says (load_checkpoint beside save_model_state).
 */
const PARSING_CALL = /^(load|loads|safe_load|full_load|unsafe_load|load_all|safe_load_all|parse|iterparse|fromstring|XML|literal_eval|reader|DictReader|read_file|read_string|unpack|unpack_from|BeautifulSoup)$/;

/**
 * A function of the module named `reader` parses something in its own code (not in a function nested in it):
 * buku's importdb json.loads what it reads; get_filehash only hashes the bytes. Any parse counts, fed from the
 * read or not: a wider answer keeps more readers, never fewer.
 */
export function parsesWhatItReads(reader: string, module: PyModule): boolean {
  return listFunctions(module).some((fn) => fn.name === reader && parses(fn.node, module));
}

function parses(fnNode: SyntaxNode, module: PyModule): boolean {
  return scopeFacts(module, fnNode).calls.some(({ callee }) => PARSING_CALL.test(callee.slice(callee.lastIndexOf('.') + 1)));
}
