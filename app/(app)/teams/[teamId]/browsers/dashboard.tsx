'use client';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { BrowserRow, DashboardSnapshot, Usage } from '#portal/protocol/dashboard.ts';
import { DashboardConnection, type PushStatus } from '#app/_live/dashboard-connection.ts';
import { duration, formatDate } from '#app/_lib/format.ts';
import { EmptyState } from '#app/_ui/empty-state.tsx';
import { Link } from '#app/_ui/link.tsx';
import { StopBrowserButton } from './[instanceId]/stop-button.tsx';
import { StartForm, type KeyChoice, type ProxyChoice } from './start-form.tsx';
import { WatchBrowserButton } from './watch-button.tsx';
import { CancelWaitingButton } from './cancel-button.tsx';
import './dashboard.css';
import { Table } from '#app/_ui/table.tsx';
import { endReasonText } from '#app/_lib/end-reasons.ts';
import { clipAddress } from '#app/_lib/address.ts';
import { Input } from '#app/_ui/input.tsx';
import { Select } from '#app/_ui/select.tsx';

type Sort = 'newest' | 'oldest' | 'person' | 'address';

function UsageMeter({ label, usage }: { label: string; usage: Usage | null }) {
  if (!usage)
    return (
      <div className="usage">
        <span>{label}</span>
        <span className="muted">unknown</span>
      </div>
    );
  const share = Math.min(1, usage.used / Math.max(1, usage.limit));
  return (
    <div className="usage">
      <span>{label}</span>
      <meter
        min={0}
        max={usage.limit}
        value={usage.used}
        aria-label={`${label}: ${usage.used} of ${usage.limit}`}
        data-full={share >= 1 || undefined}
      />
      <span>
        {usage.used} of {usage.limit}
      </span>
    </div>
  );
}

/**
 * The team's browsers, pushed from the server as they start, change and end, with small
 * thumbnails, usage against the limits, filters, and the last day's ended instances.
 */
export function Dashboard({
  teamId,
  me,
  initial,
  renderedAt,
  keys,
  proxies,
  serviceUrl,
}: {
  teamId: string;
  me: string;
  initial: DashboardSnapshot;
  renderedAt: number;
  keys: KeyChoice[];
  proxies: ProxyChoice[];
  serviceUrl: string;
}) {
  const [snapshot, setSnapshot] = useState(initial);
  const [status, setStatus] = useState<PushStatus>('connecting');
  const [thumbs, setThumbs] = useState<Record<string, string>>({});
  const thumbsRef = useRef<Record<string, string>>({});
  // The server's clock at render, so the first render in the browser reads the same (no hydration mismatch); then it ticks.
  const [now, setNow] = useState(renderedAt);
  const [person, setPerson] = useState('');
  const [address, setAddress] = useState('');
  const [sort, setSort] = useState<Sort>('newest');

  useEffect(() => {
    const conn = new DashboardConnection(teamId, {
      onSnapshot: setSnapshot,
      onStatus: setStatus,
      onThumbnail: (id, url) => {
        const old = thumbsRef.current[id];
        thumbsRef.current = { ...thumbsRef.current, [id]: url };
        setThumbs(thumbsRef.current);
        if (old) URL.revokeObjectURL(old);
      },
    });
    conn.connect();
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => {
      clearInterval(tick);
      conn.close();
      for (const url of Object.values(thumbsRef.current)) URL.revokeObjectURL(url);
    };
  }, [teamId]);

  const people = useMemo(
    () => [...new Map(snapshot.instances.map((i) => [i.startedBy.id, i.startedBy.name])).entries()],
    [snapshot.instances],
  );
  const shown = useMemo(() => {
    const needle = address.trim().toLowerCase();
    const list = snapshot.instances.filter(
      (i) =>
        (!person || i.startedBy.id === person) &&
        (!needle || i.url.toLowerCase().includes(needle) || i.title.toLowerCase().includes(needle)),
    );
    const by: Record<Sort, (a: BrowserRow, b: BrowserRow) => number> = {
      newest: (a, b) => b.startedAt - a.startedAt,
      oldest: (a, b) => a.startedAt - b.startedAt,
      person: (a, b) => a.startedBy.name.localeCompare(b.startedBy.name) || b.startedAt - a.startedAt,
      address: (a, b) => a.url.localeCompare(b.url),
    };
    return list.sort(by[sort]);
  }, [snapshot.instances, person, address, sort]);

  return (
    <>
      <StartForm teamId={teamId} keys={keys} proxies={proxies} />
      <div className="card card-body dash-capacity" aria-label="Capacity">
        <UsageMeter label="This team" usage={snapshot.capacity.team} />
        <UsageMeter label="You" usage={snapshot.capacity.mine} />
        <UsageMeter label="Service" usage={snapshot.capacity.service} />
        <span className="dash-push" data-status={status} role="status">
          {status === 'live' ? 'Updating live' : status === 'closed' ? 'Updates stopped' : 'Connecting for updates…'}
        </span>
      </div>

      <div className="row dash-filters" role="search" aria-label="Filter browsers">
        <div className="field">
          <label htmlFor="filter-person">Started by</label>
          <Select id="filter-person" className="input" value={person} onChoose={setPerson}>
            <option value="">Anyone</option>
            {people.map(([id, name]) => (
              <option key={id} value={id}>
                {id === me ? `${name} (you)` : name}
              </option>
            ))}
          </Select>
        </div>
        <div className="field">
          <label htmlFor="filter-address">Address or title</label>
          <Input id="filter-address" className="input" value={address} onType={setAddress} placeholder="e.g. example.com" />
        </div>
        <div className="field">
          <label htmlFor="sort">Sort</label>
          <Select id="sort" className="input" value={sort} onChoose={(v) => setSort(v as Sort)}>
            <option value="newest">Newest first</option>
            <option value="oldest">Oldest first</option>
            <option value="person">By person</option>
            <option value="address">By address</option>
          </Select>
        </div>
      </div>

      {snapshot.waiting.length > 0 && (
        <ul className="dash-waiting" aria-label="Waiting for room">
          {snapshot.waiting.map((w) => (
            <li key={w.id} className="card card-body dash-wait" data-browser-id={w.id} aria-label={`${w.name}, waiting for room`}>
              <div className="dash-wait-text">
                <strong>{w.name}</strong>
                <span>
                  Waiting for room <span className="muted">for {duration(now - w.since)}</span>
                </span>
                <span className="muted dash-meta">
                  by {w.startedBy.name}
                  {w.startedBy.id === me ? ' (you)' : ''} · key {w.keyName}
                </span>
              </div>
              {w.canCancel && <CancelWaitingButton teamId={teamId} instanceId={w.id} name={w.name} />}
            </li>
          ))}
        </ul>
      )}

      {snapshot.instances.length === 0 ? (
        <div className="card">
          <EmptyState icon="browser" title={snapshot.fromKeys.length ? 'No browsers started from the portal' : 'No browsers running'}>
            Start one above and it opens here, live. From code, open a WebSocket to <code>{serviceUrl.replace(/^http/, 'ws')}/start</code>{' '}
            with one of the team&apos;s API keys; browsers started that way are listed below, under the key.
          </EmptyState>
        </div>
      ) : shown.length === 0 ? (
        <p className="muted">No browser matches these filters.</p>
      ) : (
        <ul className="dash-grid" aria-label="Running browsers">
          {shown.map((i) => {
            const controller = i.viewers.find((v) => v.control);
            return (
              <li key={i.id} className="card dash-card" data-browser-id={i.id} aria-label={i.name}>
                <Link href={`/teams/${teamId}/browsers/${i.id}?mode=watch`} className="dash-thumb" aria-label={`Watch ${i.name}`}>
                  {thumbs[i.id] ? <img src={thumbs[i.id]} alt={`Thumbnail of ${i.name}`} /> : <span className="muted">No picture yet</span>}
                </Link>
                <div className="dash-body">
                  <div className="row" style={{ justifyContent: 'space-between' }}>
                    <strong>{i.name}</strong>
                    <span className="muted" title={formatDate(i.startedAt)}>
                      up {duration(now - i.startedAt)}
                    </span>
                  </div>
                  <div className="dash-page" title={i.url}>
                    <span>{i.title || 'Untitled'}</span>
                    <span className="muted">{i.url}</span>
                  </div>
                  <div className="muted dash-meta">
                    {i.attached ? "a script's, watched by " : 'by '}
                    {i.startedBy.name}
                    {i.startedBy.id === me ? ' (you)' : ''} · key {i.keyName} · since {formatDate(i.startedAt)}
                  </div>
                  <div className="dash-meta" data-testid="viewers">
                    {i.viewers.length === 0 ? 'Nobody watching' : `${i.viewers.length} watching`}
                    {controller ? ` · ${controller.name} has control` : ''}
                  </div>
                  <div className="row" style={{ gap: 'var(--space-2)' }}>
                    <Link className="btn btn-sm" href={`/teams/${teamId}/browsers/${i.id}?mode=watch`} aria-label={`Watch ${i.name}`}>
                      Watch
                    </Link>
                    <Link
                      className="btn btn-sm"
                      href={`/teams/${teamId}/browsers/${i.id}?mode=control`}
                      aria-label={`Ask for control of ${i.name}`}
                    >
                      Ask for control
                    </Link>
                    {i.canStop && (
                      <StopBrowserButton
                        teamId={teamId}
                        instanceId={i.id}
                        name={i.name}
                        others={i.viewers.filter((v) => v.userId !== me)}
                        size="sm"
                        label="Stop"
                        after="stay"
                      />
                    )}
                  </div>
                </div>
              </li>
            );
          })}
        </ul>
      )}

      {snapshot.fromKeys.length > 0 && (
        <section className="card" aria-labelledby="from-keys-title">
          <div className="card-header">
            <h3 id="from-keys-title">Started with the team&apos;s keys</h3>
            <p className="muted">
              Browsers that scripts and other clients started with the team&apos;s API keys. Whoever started them holds them: they end when
              that client lets go. Watch one to see it live, take control or share it; it stays theirs.
            </p>
          </div>
          <Table label="Browsers started with the team's keys" columns={['Page', 'Key', 'Tabs', 'Up', { hidden: 'Actions' }]}>
            {snapshot.fromKeys.map((b) => (
              <tr key={b.id} data-browser-id={b.id}>
                <td className="dash-page" title={b.url}>
                  <span>{b.title || 'Untitled'}</span>
                  <span className="muted">{b.url || 'No page open'}</span>
                </td>
                <td>{b.keyName}</td>
                <td>{b.tabs}</td>
                <td title={formatDate(b.startedAt)}>{duration(now - b.startedAt)}</td>
                <td className="row">
                  <WatchBrowserButton teamId={teamId} browserId={b.id} />
                  {b.canStop && (
                    <StopBrowserButton
                      teamId={teamId}
                      instanceId={b.id}
                      name={`the browser of key ${b.keyName}`}
                      others={[]}
                      size="sm"
                      label="Stop"
                      after="stay"
                      warning="A script or another client holds this browser: it loses it at once, and whatever the page held is gone."
                    />
                  )}
                </td>
              </tr>
            ))}
          </Table>
        </section>
      )}

      <section className="card" aria-labelledby="history-title">
        <div className="card-header">
          <h3 id="history-title">Ended in the last day</h3>
        </div>
        {snapshot.history.length === 0 ? (
          <p className="card-body muted">Nothing has ended in the last day.</p>
        ) : (
          <Table label="Ended browsers" columns={['Name', 'Started by', 'Ran for', 'Ended', 'Why']}>
            {snapshot.history.map((h) => (
              <tr key={h.id} data-browser-id={h.id}>
                {/* A script's browser is named by its last page: its address under the title, cut to the cell. */}
                <td className="dash-ended-name" title={h.script ? clipAddress(h.url, 2000) : undefined}>
                  <span>{clipAddress(h.name)}</span>
                  {h.script && h.url && h.url !== h.name && <span className="muted">{clipAddress(h.url)}</span>}
                </td>
                <td>
                  {h.script ? (
                    <>
                      A script <span className="muted">with {h.keyName}</span>
                    </>
                  ) : (
                    h.startedByName
                  )}
                </td>
                <td>{duration(h.endedAt - h.startedAt)}</td>
                <td>{formatDate(h.endedAt)}</td>
                <td title={h.message || undefined}>{endReasonText(h.reason)}</td>
              </tr>
            ))}
          </Table>
        )}
      </section>
    </>
  );
}
