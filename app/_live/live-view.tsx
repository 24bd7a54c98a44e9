'use client';
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { TAKE_CONTROL_AFTER_MS, type DialogInfo, type FrameMeta, type ViewerInfo } from '#portal/protocol/live.ts';
import { Dialog } from '#app/_ui/dialog.tsx';
import { Input } from '#app/_ui/input.tsx';
import { LiveConnection, type LiveState, type LiveStatus } from './connection.ts';
import { SHORTCUTS, shortcutOf, type ShortcutAction } from './shortcuts.ts';
import { useRemoteInput } from './use-remote-input.ts';
import './live-view.css';

/** `watch`: join view-only; `control`: ask for control at once; `auto`: take control if nobody has it. */
export type JoinMode = 'auto' | 'watch' | 'control';
/**
 * Which browser, and as whom: a team member's view of one of the team's browsers, or the view of
 * whoever holds a shared link (docs/decisions/0071), which may only watch unless the link says control.
 */
export type LiveTarget =
  { kind: 'member'; teamId: string; instanceId: string } | { kind: 'link'; token: string; mode: 'watch' | 'control' };
type Props = {
  target: LiveTarget;
  name: string;
  mode?: JoinMode;
  /** A team owner or admin: offered to take control when a question goes unanswered (the server checks the role again). */
  mayTakeControl?: boolean;
  /** Told who else is watching (this viewer left out) whenever that changes. */
  onOthers?: (others: ViewerInfo[]) => void;
};

const STATUS_TEXT: Record<LiveStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  ended: 'This browser has ended',
  refused: 'You cannot view this browser',
};

/**
 * A remote browser inside the page: the screencast on a canvas, input while the view has focus,
 * browser controls, tabs, dialogs, and who is watching and who has control.
 */
const socketPath = (t: LiveTarget) => (t.kind === 'member' ? `/live/${t.instanceId}` : `/embed/${t.token}/socket`);
/** Whether the browser is still there to reconnect to (a 404 says it is not; anything else may pass). */
async function stillThere(t: LiveTarget): Promise<boolean> {
  if (t.kind === 'member')
    return (await fetch(`/api/teams/${t.teamId}/browsers/${t.instanceId}`, { credentials: 'same-origin' })).status !== 404;
  const res = await fetch(`/api/embed/${t.token}`);
  return res.status !== 404 && res.status !== 410;
}

export function LiveView({ target, name, mode = 'auto', mayTakeControl = false, onOthers }: Props) {
  const watchOnly = target.kind === 'link' && target.mode === 'watch';
  // One connection per browser and way in: a new object with the same contents is the same target.
  const targetKey = JSON.stringify(target);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const stageRef = useRef<HTMLDivElement>(null);
  const keysRef = useRef<HTMLTextAreaElement>(null);
  const connRef = useRef<LiveConnection | null>(null);
  const metaRef = useRef<FrameMeta | null>(null);
  const framesRef = useRef<number[]>([]);
  const [status, setStatus] = useState<{ status: LiveStatus; detail?: string }>({ status: 'connecting' });
  const [state, setState] = useState<LiveState | null>(null);
  const [viewerId, setViewerId] = useState<string | null>(null);
  const [dialog, setDialog] = useState<DialogInfo | null>(null);
  const [promptText, setPromptText] = useState('');
  const [address, setAddress] = useState('');
  const [editingAddress, setEditingAddress] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  /** Who took control from this viewer without asking, until it is dismissed or control comes back. */
  const [takenBy, setTakenBy] = useState<string | null>(null);
  /** Why the address typed last was not opened; the tab's own problem comes from the server. */
  const [refusal, setRefusal] = useState<string | null>(null);
  const [fps, setFps] = useState(0);
  const [rtt, setRtt] = useState<number | null>(null);
  const [size, setSize] = useState({ width: 1280, height: 720 });
  const [focused, setFocused] = useState(false);
  const [showShortcuts, setShowShortcuts] = useState(false);
  const addressRef = useRef<HTMLInputElement>(null);

  const inControl = Boolean(viewerId && state?.controllerId === viewerId);
  const activeTab = state?.tabs.find((t) => t.active) ?? null;
  const controller = state?.viewers.find((v) => v.control) ?? null;
  const asked = Boolean(state?.viewers.find((v) => v.id === viewerId)?.requested);
  const askers = inControl ? (state?.viewers.filter((v) => v.requested) ?? []) : [];
  // The control button does the opposite once control changes hands ("Ask for control" becomes
  // "Release control"): it waits a moment after each change, so a click aimed at the old one is
  // not taken as the new one.
  const controlMode = inControl ? 'release' : asked ? 'asked' : 'ask';
  const [controlSettling, setControlSettling] = useState(false);
  // An owner's or admin's question that goes unanswered for a while may be turned into taking control.
  const [takeOffered, setTakeOffered] = useState(false);
  useEffect(() => {
    setTakeOffered(false);
    if (!asked || !mayTakeControl) return;
    const timer = setTimeout(() => setTakeOffered(true), TAKE_CONTROL_AFTER_MS);
    return () => clearTimeout(timer);
  }, [asked, mayTakeControl]);
  useEffect(() => {
    if (inControl) setTakenBy(null);
  }, [inControl]);
  useEffect(() => {
    setControlSettling(true);
    const timer = setTimeout(() => setControlSettling(false), 400);
    return () => clearTimeout(timer);
  }, [controlMode]);
  const send = useCallback((m: Parameters<LiveConnection['send']>[0]) => connRef.current?.send(m), []);
  const othersKey = JSON.stringify(state?.viewers.filter((v) => v.id !== viewerId) ?? []);
  useEffect(() => onOthers?.(JSON.parse(othersKey) as ViewerInfo[]), [othersKey, onOthers]);

  useEffect(() => {
    const current = JSON.parse(targetKey) as LiveTarget;
    const conn = new LiveConnection(
      socketPath(current),
      {
        onStatus: (s, detail) => setStatus({ status: s, detail }),
        onWelcome: (id) => {
          setViewerId(id);
          if (mode === 'control') conn.send({ type: 'control', action: 'request' });
        },
        onState: setState,
        onDialog: (d) => {
          setDialog(d);
          setPromptText(d?.defaultPrompt ?? '');
        },
        onClipboard: (text) => {
          void navigator.clipboard?.writeText(text).then(
            () => setNotice(text ? 'Copied the remote selection.' : 'Nothing is selected in the remote page.'),
            () => setNotice('The browser did not allow copying to your clipboard.'),
          );
        },
        onError: (message, code) => (code === 'address-refused' ? setRefusal(message) : setNotice(message)),
        onInsecure: (url) => setNotice(`${new URL(url).host} does not answer over https; opened over http, which is not private.`),
        onDeclined: (by) => setNotice(`${by} said no for now; you can ask again.`),
        onTaken: (by) => setTakenBy(by),
        onRtt: (ms) => setRtt(Math.round(ms)),
        stillThere: () => stillThere(current),
        onFrame: (meta, bitmap) => {
          const canvas = canvasRef.current;
          metaRef.current = meta;
          if (!canvas) return bitmap.close();
          // The canvas's pixel size is set here only, never by React: setting it (even to the same
          // numbers through an attribute) clears the canvas, and a page that is not changing sends no
          // frame to draw it again.
          if (canvas.width !== bitmap.width || canvas.height !== bitmap.height) {
            canvas.width = bitmap.width;
            canvas.height = bitmap.height;
          }
          canvas.getContext('2d')?.drawImage(bitmap, 0, 0);
          bitmap.close();
          setSize((s) =>
            s.width === meta.deviceWidth && s.height === meta.deviceHeight ? s : { width: meta.deviceWidth, height: meta.deviceHeight },
          );
          framesRef.current.push(performance.now());
        },
      },
      () => {
        const rect = stageRef.current?.getBoundingClientRect();
        return {
          width: Math.max(100, Math.min(4096, Math.round(rect?.width ?? 1280))),
          height: Math.max(100, Math.min(4096, Math.round(rect?.height ?? 720))),
        };
      },
      { takeControl: mode === 'auto' },
    );
    connRef.current = conn;
    conn.connect();
    const meter = setInterval(() => {
      const now = performance.now();
      framesRef.current = framesRef.current.filter((t) => now - t < 1000);
      setFps(framesRef.current.length);
    }, 500);
    return () => {
      clearInterval(meter);
      conn.close();
    };
  }, [targetKey, mode]);

  useEffect(() => {
    if (!editingAddress) setAddress(activeTab?.url === 'about:blank' ? '' : (activeTab?.url ?? ''));
  }, [activeTab?.url, editingAddress]);

  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(null), 4000);
    return () => clearTimeout(t);
  }, [notice]);

  // A phone (a narrow touch screen) gets a remote browser of its own kind: the phone's viewport and
  // touch (device emulation), once it has control, rather than a desktop page drawn too small to read.
  const phone = usePhone();
  const following = state?.viewport.mode === 'follow';
  const fitMessage = useCallback(() => {
    const stage = stageRef.current;
    return {
      type: 'viewport' as const,
      mode: 'follow' as const,
      width: Math.max(100, Math.min(4096, Math.round(stage?.clientWidth ?? 1280))),
      height: Math.max(100, Math.min(4096, Math.round(stage?.clientHeight ?? 720))),
      mobile: phone,
    };
  }, [phone]);
  const phoneFitted = useRef(false);
  useEffect(() => {
    if (!inControl) phoneFitted.current = false;
    else if (phone && !phoneFitted.current && state && !(following && state.viewport.mobile)) {
      phoneFitted.current = true;
      send(fitMessage());
    }
  }, [inControl, phone, following, state, send, fitMessage]);

  // The viewport follows the stage's size when the controller chose "fit". A layout effect: its
  // observer is gone before the stage takes its fixed shape, which must not be sent as a new size.
  useLayoutEffect(() => {
    const stage = stageRef.current;
    if (!stage || !following || !inControl) return;
    let last = '';
    const observer = new ResizeObserver(([entry]) => {
      if (!entry) return;
      const width = Math.max(100, Math.min(4096, Math.round(entry.contentRect.width)));
      const height = Math.max(100, Math.min(4096, Math.round(entry.contentRect.height)));
      const key = `${width}x${height}:${phone}`;
      if (key !== last) send({ type: 'viewport', mode: 'follow', width, height, mobile: phone });
      last = key;
    });
    observer.observe(stage);
    return () => observer.disconnect();
  }, [following, inControl, phone, send]);

  useRemoteInput(canvasRef, keysRef, metaRef, inControl, send);

  // The whole view fits the window without scrolling: the screen is as tall as the window leaves it
  // below whatever stands above it (the page's head, the tabs and the toolbar) and above the status
  // bar. Nothing scrolls the page: it opens where it is, at the top.
  const sectionRef = useRef<HTMLElement>(null);
  const [fitHeight, setFitHeight] = useState<number | null>(null);
  useEffect(() => {
    const section = sectionRef.current;
    const stage = stageRef.current;
    if (!section || !stage) return;
    const measure = () => setFitHeight(roomFor(section, stage));
    measure();
    // Again whenever anything above or below the screen changes height (a second line of viewers,
    // a notice, the page's head wrapping), and when the window does.
    const observer = new ResizeObserver(measure);
    for (const part of section.children) if (part !== stage) observer.observe(part);
    for (let el: Element | null = section; el && el !== document.body; el = el.parentElement)
      for (let sibling = el.previousElementSibling; sibling; sibling = sibling.previousElementSibling) observer.observe(sibling);
    window.addEventListener('resize', measure);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
    };
  }, []);

  const ended = status.status === 'ended' || status.status === 'refused';
  // Keyboard shortcuts (./shortcuts.ts), from anywhere on the page; the keys never reach the remote page.
  const onShortcut = useRef<(action: ShortcutAction) => void>(() => {});
  onShortcut.current = (action) => {
    const tabs = state?.tabs ?? [];
    const at = tabs.findIndex((t) => t.active);
    if (action === 'help') return setShowShortcuts((v) => !v);
    if (action === 'control') {
      if (watchOnly) return setNotice('This link lets you watch only.');
      if (inControl) send({ type: 'control', action: 'release' });
      else if (!ended) send({ type: 'control', action: asked ? 'withdraw' : 'request' });
      return;
    }
    if (!inControl) return setNotice(watchOnly ? 'This link lets you watch only.' : 'Ask for control first: Alt+Shift+C.');
    switch (action) {
      case 'address':
        addressRef.current?.focus();
        return addressRef.current?.select();
      case 'new-tab':
        return send({ type: 'tab', action: 'open' });
      case 'close-tab':
        return activeTab && send({ type: 'tab', action: 'close', tabId: activeTab.id });
      case 'next-tab':
      case 'previous-tab': {
        const next = tabs[(at + (action === 'next-tab' ? 1 : -1) + tabs.length) % tabs.length];
        return next && !next.active && send({ type: 'tab', action: 'switch', tabId: next.id });
      }
      case 'back':
      case 'forward':
      case 'reload':
        return send({ type: 'history', action });
    }
  };
  useEffect(() => {
    const keydown = (e: KeyboardEvent) => {
      const action = shortcutOf(e);
      if (!action) return;
      e.preventDefault();
      e.stopPropagation();
      if (!e.repeat) onShortcut.current(action);
    };
    // Its release is the live view's too: the remote page never saw the press.
    const keyup = (e: KeyboardEvent) => {
      if (shortcutOf(e)) e.stopPropagation();
    };
    window.addEventListener('keydown', keydown, { capture: true });
    window.addEventListener('keyup', keyup, { capture: true });
    return () => {
      window.removeEventListener('keydown', keydown, { capture: true });
      window.removeEventListener('keyup', keyup, { capture: true });
    };
  }, []);

  const go = (e: FormEvent) => {
    e.preventDefault();
    if (!address.trim()) return;
    setRefusal(null);
    send({ type: 'navigate', url: address });
    setEditingAddress(false);
    keysRef.current?.focus({ preventScroll: true });
  };

  const problem = activeTab?.problem ?? null;
  return (
    <section className="live" ref={sectionRef} aria-label={`Live view of ${name}`}>
      <div className="live-tabs">
        {/* Tabs as ARIA tabs: Delete closes the focused one; the × beside each is the mouse's way to the same. */}
        <div className="live-tablist" role="tablist" aria-label="Tabs">
          {state?.tabs.map((t) => (
            <div key={t.id} className="live-tab" role="presentation" data-active={t.active || undefined}>
              <button
                type="button"
                role="tab"
                aria-selected={t.active}
                aria-keyshortcuts="Delete"
                disabled={!inControl}
                onClick={() => send({ type: 'tab', action: 'switch', tabId: t.id })}
                onKeyDown={(e) => {
                  if (e.key !== 'Delete') return;
                  e.preventDefault();
                  send({ type: 'tab', action: 'close', tabId: t.id });
                }}
                title={t.url}
              >
                {t.loading && <span className="spinner" aria-hidden="true" />}
                <span className="live-tab-title">{t.title || t.url || 'New tab'}</span>
              </button>
              <button
                type="button"
                className="live-tab-close"
                aria-hidden="true"
                tabIndex={-1}
                title={`Close tab ${t.title || t.url || 'New tab'}`}
                disabled={!inControl}
                onClick={() => send({ type: 'tab', action: 'close', tabId: t.id })}
              >
                ×
              </button>
            </div>
          ))}
        </div>
        <button
          type="button"
          className="live-tab-new"
          aria-label="New tab"
          aria-keyshortcuts="Alt+Shift+T"
          disabled={!inControl}
          onClick={() => send({ type: 'tab', action: 'open' })}
        >
          +
        </button>
      </div>

      <div className="live-toolbar">
        <button
          type="button"
          className="btn btn-sm btn-ghost"
          aria-label="Back"
          aria-keyshortcuts="Alt+Shift+ArrowLeft"
          disabled={!inControl}
          onClick={() => send({ type: 'history', action: 'back' })}
        >
          ←
        </button>
        <button
          type="button"
          className="btn btn-sm btn-ghost"
          aria-label="Forward"
          aria-keyshortcuts="Alt+Shift+ArrowRight"
          disabled={!inControl}
          onClick={() => send({ type: 'history', action: 'forward' })}
        >
          →
        </button>
        {activeTab?.loading ? (
          <button
            type="button"
            className="btn btn-sm btn-ghost"
            aria-label="Stop loading"
            disabled={!inControl}
            onClick={() => send({ type: 'history', action: 'stop' })}
          >
            ✕
          </button>
        ) : (
          <button
            type="button"
            className="btn btn-sm btn-ghost"
            aria-label="Reload"
            disabled={!inControl}
            onClick={() => send({ type: 'history', action: 'reload' })}
          >
            ↻
          </button>
        )}
        <form className="live-address" onSubmit={go}>
          <Input
            inputRef={addressRef}
            aria-label="Address"
            aria-keyshortcuts="Alt+Shift+L"
            value={address}
            placeholder="Type an address"
            disabled={!inControl}
            onFocus={() => setEditingAddress(true)}
            onBlur={() => setEditingAddress(false)}
            onType={setAddress}
            spellCheck={false}
            autoComplete="off"
          />
        </form>
        <button type="button" className="btn btn-sm" onClick={() => send({ type: 'copy' })} disabled={ended}>
          Copy selection
        </button>
        {/* A toggle that keeps its name: pressed, the remote browser takes the size of the window's room. */}
        <button
          type="button"
          className="btn btn-sm live-fit"
          aria-pressed={following}
          disabled={!inControl}
          title={
            inControl
              ? following
                ? 'The remote browser takes the size of this window; press again for a fixed 1280×720'
                : 'Give the remote browser the size of this window'
              : 'Only the viewer in control can resize the remote browser'
          }
          onClick={() => send(following ? { type: 'viewport', mode: 'fixed', width: 1280, height: 720 } : fitMessage())}
        >
          Fit to window
        </button>
        {watchOnly ? (
          <span className="muted">Watching through a shared link</span>
        ) : inControl ? (
          <button
            key="release"
            type="button"
            className="btn btn-sm"
            disabled={controlSettling}
            onClick={() => send({ type: 'control', action: 'release' })}
          >
            Release control
          </button>
        ) : asked ? (
          <span key="asked" className="live-asked" role="status">
            Waiting for {controller?.name ?? 'an answer'}…
            {takeOffered && (
              <button
                type="button"
                className="btn btn-sm btn-primary"
                title={`${controller?.name ?? 'The viewer in control'} has not answered: take control now; they are told you took it`}
                onClick={() => send({ type: 'control', action: 'take' })}
              >
                Take control
              </button>
            )}
            <button
              type="button"
              className="btn btn-sm"
              disabled={controlSettling}
              onClick={() => send({ type: 'control', action: 'withdraw' })}
            >
              Cancel
            </button>
          </span>
        ) : (
          <button
            key="ask"
            type="button"
            className="btn btn-sm btn-primary"
            disabled={ended || controlSettling}
            onClick={() => send({ type: 'control', action: 'request' })}
          >
            Ask for control
          </button>
        )}
      </div>

      {/* Always present (empty when all is well), so the fit above sees its height change. */}
      <div className="live-problems">
        {takenBy && (
          <div className="live-problem alert alert-warning" role="alert" data-code="control-taken">
            <p className="live-problem-title">{takenBy} took control of this browser.</p>
            <button type="button" className="btn btn-sm btn-ghost" aria-label="Dismiss" onClick={() => setTakenBy(null)}>
              ×
            </button>
          </div>
        )}
        {refusal ? (
          <div className="live-problem alert alert-warning" role="alert">
            <p className="live-problem-title">{refusal}</p>
            <button type="button" className="btn btn-sm btn-ghost" aria-label="Dismiss" onClick={() => setRefusal(null)}>
              ×
            </button>
          </div>
        ) : (
          problem && (
            <div className="live-problem alert alert-warning" role="alert" data-code={problem.code}>
              <div>
                <p className="live-problem-title">{problem.title}</p>
                <p>{problem.detail}</p>
                {problem.operator && <p className="muted">{problem.operator}</p>}
                <p className="muted live-problem-code">
                  {problem.url.length > 120 ? `${problem.url.slice(0, 117)}…` : problem.url} · {problem.code}
                </p>
              </div>
            </div>
          )
        )}
      </div>

      <div
        className="live-stage"
        ref={stageRef}
        data-focused={focused || undefined}
        data-fill={(following && inControl) || undefined}
        style={
          following && inControl
            ? // The remote browser follows this box: it fills the room, and the remote page takes its size.
              { width: '100%', height: fitHeight === null ? '70vh' : `${fitHeight}px` }
            : {
                aspectRatio: `${size.width} / ${size.height}`,
                width: `min(100%, calc(${fitHeight === null ? '70vh' : `${fitHeight}px`} * ${size.width} / ${size.height}))`,
              }
        }
      >
        {askers.length > 0 && (
          <div className="live-requests" role="alert">
            {askers.map((v) => (
              <div key={v.id} className="live-request">
                <span>
                  <strong>{v.name}</strong> asks for control.
                </span>
                <button
                  type="button"
                  className="btn btn-sm btn-primary"
                  aria-label={`Give control to ${v.name}`}
                  onClick={() => send({ type: 'control', action: 'grant', viewerId: v.id })}
                >
                  Give control
                </button>
                <button
                  type="button"
                  className="btn btn-sm"
                  aria-label={`Decline ${v.name}`}
                  onClick={() => send({ type: 'control', action: 'decline', viewerId: v.id })}
                >
                  Decline
                </button>
              </div>
            ))}
          </div>
        )}
        <canvas
          ref={canvasRef}
          className="live-canvas"
          aria-label={`Screen of ${name}${activeTab ? `: ${activeTab.title}` : ''}`}
          role="img"
        />
        <textarea
          ref={keysRef}
          className="live-keys"
          aria-label="Keyboard input for the remote browser"
          onFocus={() => setFocused(true)}
          onBlur={() => setFocused(false)}
          readOnly={!inControl}
        />
        {status.status !== 'live' && (
          <div className="live-overlay" role="status">
            <p>{STATUS_TEXT[status.status]}</p>
            {status.detail && <p className="muted">{status.detail}</p>}
          </div>
        )}
        {dialog && (
          <div className="live-dialog" role="alertdialog" aria-label={`The page says: ${dialog.message}`}>
            <p className="live-dialog-message">{dialog.message || (dialog.dialogType === 'beforeunload' ? 'Leave this page?' : '')}</p>
            {dialog.dialogType === 'prompt' && (
              <Input aria-label="Answer" value={promptText} onType={setPromptText} disabled={!inControl} />
            )}
            <div className="live-dialog-actions">
              {dialog.dialogType !== 'alert' && (
                <button type="button" className="btn btn-sm" disabled={!inControl} onClick={() => send({ type: 'dialog', accept: false })}>
                  Cancel
                </button>
              )}
              <button
                type="button"
                className="btn btn-sm btn-primary"
                disabled={!inControl}
                onClick={() => send({ type: 'dialog', accept: true, promptText })}
              >
                OK
              </button>
            </div>
          </div>
        )}
      </div>

      <div className="live-status" aria-live="polite">
        <span className="live-dot" data-status={status.status} aria-hidden="true" />
        <span>{STATUS_TEXT[status.status]}</span>
        {status.status === 'live' && <span className="live-fps">{fps} fps</span>}
        {status.status === 'live' && rtt !== null && <span className="live-fps">{rtt} ms round trip</span>}
        <span>
          {size.width}×{size.height}
        </span>
        <span data-testid="control-status">
          {inControl
            ? focused
              ? 'You have control; keys go to the page'
              : 'You have control; click the page to type'
            : controller
              ? `${controller.name} has control`
              : 'Nobody has control'}
        </span>
        <span className="live-viewers" aria-label="Watching">
          {state?.viewers.map((v) => (
            <span
              key={v.id}
              className="live-viewer"
              data-control={v.control || undefined}
              title={v.control ? `${v.name} (in control)` : v.name}
            >
              {v.name}
              {v.id === viewerId ? ' (you)' : ''}
            </span>
          ))}
        </span>
        {notice && (
          <span className="live-notice" role="status">
            {notice}
          </span>
        )}
        <button
          type="button"
          className="btn btn-sm btn-ghost live-shortcuts-button"
          aria-keyshortcuts="Alt+Shift+/"
          onClick={() => setShowShortcuts(true)}
        >
          Shortcuts
        </button>
      </div>
      <Dialog
        open={showShortcuts}
        onClose={() => setShowShortcuts(false)}
        title="Keyboard shortcuts"
        description="They work anywhere on this page; every other key goes to the remote page while the screen has focus."
      >
        <table className="table" aria-label="Keyboard shortcuts">
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={s.action}>
                <td>
                  <kbd>{s.keys}</kbd>
                </td>
                <td>{s.does}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Dialog>
    </section>
  );
}

/**
 * How tall the screen may be for the whole view to fit the window when the page is at its top: the
 * window's height less what stands above the screen and what stands below it (the status bar, the
 * gap before it and the page's own bottom padding).
 */
function roomFor(section: HTMLElement, stage: HTMLElement): number {
  const top = stage.getBoundingClientRect().top + window.scrollY;
  const status = section.querySelector('.live-status')?.getBoundingClientRect().height ?? 32;
  const gap = parseFloat(getComputedStyle(section).rowGap) || 0;
  const main = section.closest('main');
  const padding = main ? parseFloat(getComputedStyle(main).paddingBottom) || 0 : 0;
  return Math.max(120, Math.floor(window.innerHeight - top - gap - status - padding - 1));
}

const PHONE = '(max-width: 640px) and (pointer: coarse)';
/** Whether the page is on a phone: a narrow window on a touch screen. */
function usePhone(): boolean {
  const [phone, setPhone] = useState(false);
  useEffect(() => {
    const query = window.matchMedia(PHONE);
    const update = () => setPhone(query.matches);
    update();
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, []);
  return phone;
}
