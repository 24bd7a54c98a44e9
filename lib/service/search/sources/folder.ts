import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { FetchedPage } from '../backend.ts';
import { decodeHtml } from './http-payload.ts';

/** HTML files under a folder, each given the address `baseUrl` + its path below the folder. */
export async function* folderPages(dir: string, baseUrl: string): AsyncGenerator<FetchedPage> {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && /\.x?html?$/i.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
  for (const file of files) {
    const path = relative(dir, file).split(sep).map(encodeURIComponent).join('/');
    yield { url: new URL(path, base).href, html: decodeHtml(await readFile(file), undefined) };
  }
}
