// Calls on an archive object: zf.open(name) and zf.read(name) of a zipfile.ZipFile read the member
// `name` out of the archive, not a file of that name on disk (pip 23.0.1's unzip_file reads member
// `name` and writes it to fn = name under the target folder: no file is read back). Only a receiver
// that is certainly an archive: made by zipfile's or tarfile's own constructor (the module imported,
// or the constructor imported from it), directly or through a local name every binding of which is one.
import type { PyModule, SyntaxNode } from '../model.ts';
import { callParts } from '../body-walk.ts';
import { enclosingFunctionNode } from '../functions.ts';
import { importBindings } from '../imports.ts';
import { nameBindings } from './name-bindings.ts';
import { unparenthesized } from './syntax.ts';

/** Archive constructors, by module and the name inside it. */
const OPENERS: Readonly<Record<string, readonly string[]>> = {
  zipfile: ['ZipFile', 'PyZipFile'],
  tarfile: ['open', 'TarFile', 'TarFile.open'],
};

/** The methods that read a member, not a path, by archive module: a TarFile's open() is a classmethod that opens a path on disk. */
const MEMBER_READERS: Readonly<Record<string, readonly string[]>> = {
  zipfile: ['open', 'read'],
  tarfile: ['extractfile'],
};

/** True when `receiver.method(...)` certainly reads an archive member: the receiver is a ZipFile or TarFile object and the method one of its member readers. */
export function readsArchiveMember(receiver: SyntaxNode, method: string, module: PyModule): boolean {
  const kind = archiveKind(receiver, module);
  return kind !== undefined && (MEMBER_READERS[kind]?.includes(method) ?? false);
}

/** 'zipfile' or 'tarfile' when `receiver` is certainly an object of that module's archive class. */
function archiveKind(receiver: SyntaxNode, module: PyModule): string | undefined {
  const node = unparenthesized(receiver);
  if (node.type === 'call') return opensArchive(node, module);
  const fnNode = node.type === 'identifier' ? enclosingFunctionNode(node) : undefined;
  if (!fnNode) return undefined;
  const { params, values, opaque } = nameBindings(fnNode);
  if (params.has(node.text) || opaque.has(node.text)) return undefined;
  // `zf.write(path)` puts a file in the archive: name-bindings.ts counts it as contents, not as a binding of zf.
  const kinds = new Set((values.get(node.text) ?? []).filter((value) => !isArgumentOfCallOn(value, node.text)).map((value) => opensArchive(unparenthesized(value), module)));
  const [kind] = kinds;
  return kinds.size === 1 ? kind : undefined;
}

function opensArchive(node: SyntaxNode, module: PyModule): string | undefined {
  if (node.type !== 'call') return undefined;
  // `zipfile.ZipFile` after `import zipfile`, `ZipFile` after `from zipfile import ZipFile`, `TarFile.open` after `from tarfile import TarFile`.
  const [head = '', ...rest] = callParts(node).callee.split('.');
  const binding = importBindings(module).find((binding) => binding.localName === head && OPENERS[binding.module]?.includes([...(binding.name ? [binding.name] : []), ...rest].join('.')));
  return binding?.module;
}

function isArgumentOfCallOn(value: SyntaxNode, name: string): boolean {
  const call = value.parent?.type === 'argument_list' ? value.parent.parent : undefined;
  return call?.type === 'call' && callParts(call).receiver?.text === name;
}
