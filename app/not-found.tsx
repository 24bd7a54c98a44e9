import { Link } from './_ui/link.tsx';
import { EmptyState } from './_ui/empty-state.tsx';

export default function NotFound() {
  return (
    <main id="main" className="page">
      <EmptyState
        icon="search"
        title="Nothing here"
        action={
          <Link className="btn" href="/">
            Go to your teams
          </Link>
        }
      >
        This page does not exist, or it belongs to a team you are not a member of.
      </EmptyState>
    </main>
  );
}
