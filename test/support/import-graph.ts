import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The file an import specifier names: the `.ts` source of a `.js` specifier, else the file itself. */
function sourceOf(path: string): string {
  const typescript = path.replace(/\.js$/, '.ts');
  return existsSync(typescript) ? typescript : path;
}

/**
 * What a module graph imports statically: its files, and the bare specifiers it names. Type-only and
 * dynamic imports do not load anything, so they are not counted; comments (JSDoc examples show
 * imports too) are removed before the import statements are read.
 */
export function staticImports(entry: string): { files: Set<string>; specifiers: Set<string> } {
  const files = new Set<string>();
  const specifiers = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const match of source.matchAll(/^\s*(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]/gm)) {
      if (/^\s*(?:import|export)\s+type\s/.test(match[0])) continue;
      const specifier = match[1]!;
      if (specifier.startsWith('.')) visit(sourceOf(resolve(dirname(file), specifier)));
      else specifiers.add(specifier);
    }
  };
  visit(entry);
  return { files, specifiers };
}

/** The packages of {@link staticImports}: `@scope/name` or `name`, `node:` built-ins left out. */
export function staticPackages(entry: string): { files: Set<string>; packages: Set<string> } {
  const { files, specifiers } = staticImports(entry);
  const packages = new Set<string>();
  for (const specifier of specifiers) {
    if (specifier.startsWith('node:')) continue;
    packages.add(
      specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!,
    );
  }
  return { files, packages };
}
