'use client';
import { useState, type ReactNode } from 'react';
import type { ViewerInfo } from '#portal/protocol/live.ts';
import { LiveView, type JoinMode } from '#app/_live/live-view.tsx';
import { ShareBrowser } from './share.tsx';
import { StopBrowserButton } from './stop-button.tsx';
import { SaveAsProfileButton } from './save-as.tsx';
import './live-page.css';

/** The live page's head and view together, so that Stop knows who else is watching. */
export function LiveBrowserPanel({
  teamId,
  instanceId,
  name,
  me,
  mode,
  canStop,
  canTakeControl,
  attached,
  heading,
  rename,
}: {
  teamId: string;
  instanceId: string;
  name: string;
  /** The signed-in user: their own other tabs are not onlookers. */
  me: string;
  mode: JoinMode;
  canStop: boolean;
  /** A team owner or admin, who may take control when a question goes unanswered. */
  canTakeControl: boolean;
  /** A script's browser the portal watches: stopping it ends it for the script. */
  attached: boolean;
  heading: ReactNode;
  rename: ReactNode;
}) {
  const [others, setOthers] = useState<ViewerInfo[]>([]);
  return (
    <>
      <div className="page-head live-page-head">
        {heading}
        <div className="row">
          <ShareBrowser teamId={teamId} instanceId={instanceId} canShareControl={canStop} />
          {canStop && (
            <>
              {rename}
              <SaveAsProfileButton teamId={teamId} instanceId={instanceId} name={name} />
              <StopBrowserButton
                teamId={teamId}
                instanceId={instanceId}
                name={name}
                others={others.filter((v) => v.userId !== me)}
                warning={
                  attached
                    ? 'A script holds this browser: stopping it ends it for the script at once, and whatever the page held is gone. To stop only watching, leave this page.'
                    : undefined
                }
              />
            </>
          )}
        </div>
      </div>
      <LiveView
        target={{ kind: 'member', teamId, instanceId }}
        name={name}
        mode={mode}
        mayTakeControl={canTakeControl}
        onOthers={setOthers}
      />
    </>
  );
}
