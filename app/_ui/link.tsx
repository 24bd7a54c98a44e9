import linkModule from 'next/link.js';

// next/link is CommonJS; under NodeNext typings the component sits on .default. Both shapes work.
export const Link = ((linkModule as unknown as { default?: unknown }).default ?? linkModule) as typeof linkModule.default;
