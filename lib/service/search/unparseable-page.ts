/** The page could not be read as an HTML document; it is reported and skipped. */
export class UnparseablePage extends Error {
  readonly why: string;
  constructor(url: string, why: string) {
    super(`${url}: ${why}`);
    this.name = 'UnparseablePage';
    this.why = why;
  }
}
