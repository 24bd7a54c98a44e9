/**
 * Why a browser ended, in the words the team's pages use (the dashboard's history, the recordings):
 * the service's and the portal's reason codes, each said once, here.
 */
const END_REASONS: Record<string, string> = {
  stopped: 'Stopped',
  // The script that started it closed its /start socket: its own way to stop it.
  'client-closed': 'Stopped',
  'client-unresponsive': 'Client stopped answering',
  idle: 'Idle',
  lifetime: 'Lifetime limit',
  diskLimit: 'Disk limit',
  crashed: 'Crashed',
  keyRevoked: 'Key revoked',
  shutdown: 'Service shut down',
  internal: 'Service error',
  'service-gone': 'Service unreachable',
  'service-restarted': 'Service restarted',
  'portal-shutdown': 'Portal shut down',
  nodeLost: 'Service node lost',
  'portal-node-lost': 'Portal node lost',
  'portal-restarted': 'Portal restarted',
};

/** A reason code as words; one this portal does not know is shown as it came, and none as "Ended". */
export const endReasonText = (reason: string | null | undefined): string => (reason ? (END_REASONS[reason] ?? reason) : 'Ended');
