import { redirect } from 'next/navigation.js';

export default async function TeamIndex({ params }: { params: Promise<{ teamId: string }> }) {
  redirect(`/teams/${encodeURIComponent((await params).teamId)}/keys`);
}
