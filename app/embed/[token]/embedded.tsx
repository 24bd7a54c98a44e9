'use client';
import { LiveView } from '#app/_live/live-view.tsx';

/** The live view through a shared link: watch only, or ask for control when the link allows it. */
export function EmbeddedBrowser({ token, name, mode }: { token: string; name: string; mode: 'watch' | 'control' }) {
  return (
    <>
      <h1 className="embed-title">{name}</h1>
      <LiveView target={{ kind: 'link', token, mode }} name={name} mode={mode === 'watch' ? 'watch' : 'auto'} />
    </>
  );
}
