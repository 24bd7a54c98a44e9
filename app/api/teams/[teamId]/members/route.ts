import { listMembers } from '#portal/teams/teams.ts';
import { route } from '#app/_lib/api.ts';

export const GET = route<{ teamId: string }>(async ({ portal, actor, params }) => ({
  members: (await listMembers(portal.data, actor, params.teamId)).map((m) => ({
    userId: m.userId,
    email: m.email,
    name: m.name,
    role: m.role,
    joinedAt: m.createdAt,
  })),
}));
