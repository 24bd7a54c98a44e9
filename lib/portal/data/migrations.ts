import type { Migration } from '#shared/sqlite.ts';

/**
 * Schema of the portal's database (DATA_DIR/portal.db). Append only: a released migration is
 * never edited. Portable on purpose, so a PostgreSQL backend can run the same shape: text ids,
 * integer epoch milliseconds, text enums with CHECK, no SQLite-only column types.
 */
export const portalMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'users, teams, memberships, invites',
    up: `
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        password_hash TEXT,
        current_team_id TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE oauth_accounts (
        provider TEXT NOT NULL,
        provider_account_id TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (provider, provider_account_id)
      );
      CREATE TABLE teams (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        personal INTEGER NOT NULL CHECK (personal IN (0, 1)),
        created_at INTEGER NOT NULL
      );
      CREATE TABLE memberships (
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        created_at INTEGER NOT NULL,
        PRIMARY KEY (team_id, user_id)
      );
      CREATE INDEX memberships_by_user ON memberships(user_id);
      CREATE TABLE invites (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        token_hash TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
        created_by TEXT NOT NULL REFERENCES users(id),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER,
        used_by TEXT REFERENCES users(id),
        revoked_at INTEGER
      );
      CREATE INDEX invites_by_team ON invites(team_id);`,
  },
  {
    version: 2,
    name: 'key vault and audit log',
    up: `
      CREATE TABLE team_keys (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('issued', 'external')),
        service_key_id TEXT,
        hint_prefix TEXT NOT NULL,
        hint_last4 TEXT NOT NULL,
        sealed TEXT NOT NULL,
        is_default INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
        created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at INTEGER
      );
      CREATE INDEX team_keys_by_team ON team_keys(team_id);
      CREATE UNIQUE INDEX team_keys_one_default ON team_keys(team_id) WHERE is_default = 1;
      CREATE TABLE audit_events (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        actor_id TEXT REFERENCES users(id) ON DELETE SET NULL,
        action TEXT NOT NULL,
        subject TEXT NOT NULL,
        detail TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX audit_events_by_team ON audit_events(team_id, created_at);`,
  },
  {
    version: 3,
    name: 'sign-in throttling',
    up: `
      CREATE TABLE sign_in_failures (
        scope TEXT PRIMARY KEY,
        failures INTEGER NOT NULL,
        window_started_at INTEGER NOT NULL,
        locked_until INTEGER
      );`,
  },
  {
    version: 4,
    name: 'ended browser instances',
    up: `
      CREATE TABLE instance_history (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        started_by TEXT REFERENCES users(id) ON DELETE SET NULL,
        started_by_name TEXT NOT NULL,
        key_name TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER NOT NULL,
        reason TEXT NOT NULL,
        message TEXT NOT NULL
      );
      CREATE INDEX instance_history_by_team ON instance_history(team_id, ended_at);`,
  },
  {
    version: 5,
    name: 'recent searches',
    up: `
      CREATE TABLE recent_searches (
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        query TEXT NOT NULL,
        language TEXT NOT NULL,
        searched_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, query, language)
      );
      CREATE INDEX recent_searches_by_user ON recent_searches(user_id, searched_at);`,
  },
  {
    version: 6,
    name: 'session versions, password resets, audit of everything a team does',
    up: `
      ALTER TABLE users ADD COLUMN session_version INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE password_resets (
        token_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      );
      ALTER TABLE audit_events ADD COLUMN actor_label TEXT;
      UPDATE audit_events SET actor_label = (SELECT email FROM users WHERE users.id = audit_events.actor_id);
      CREATE INDEX audit_events_by_actor ON audit_events(team_id, actor_id, created_at);`,
  },
  {
    version: 7,
    name: 'session recording per team',
    up: `ALTER TABLE teams ADD COLUMN record_sessions INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    version: 8,
    name: 'who had control of a browser, and shared links to live browsers',
    up: `
      CREATE TABLE control_history (
        browser_id TEXT NOT NULL,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        at INTEGER NOT NULL,
        user_id TEXT,
        name TEXT
      );
      CREATE INDEX control_history_by_browser ON control_history(team_id, browser_id, at);
      CREATE INDEX control_history_by_age ON control_history(at);
      CREATE TABLE live_links (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        instance_id TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        mode TEXT NOT NULL CHECK (mode IN ('watch', 'control')),
        label TEXT NOT NULL,
        created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        revoked_at INTEGER
      );
      CREATE INDEX live_links_by_instance ON live_links(team_id, instance_id);`,
  },
  {
    version: 9,
    name: 'upstream proxies per team',
    up: `
      CREATE TABLE team_proxies (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        scheme TEXT NOT NULL CHECK (scheme IN ('http', 'https', 'socks5')),
        host TEXT NOT NULL,
        port INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
        has_credentials INTEGER NOT NULL CHECK (has_credentials IN (0, 1)),
        sealed TEXT NOT NULL,
        created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX team_proxies_name ON team_proxies(team_id, name);`,
  },
  {
    version: 10,
    name: "the service's id of each ended browser",
    up: `
      ALTER TABLE instance_history ADD COLUMN browser_id TEXT;
      CREATE INDEX instance_history_by_browser ON instance_history(team_id, browser_id);`,
  },
  {
    version: 11,
    name: 'ended browsers forgotten after a month',
    // Each record of an ended browser is kept as long as a change of control is (decision 0119):
    // the oldest go as each new one is added, found by this index.
    up: `CREATE INDEX instance_history_by_age ON instance_history(ended_at);`,
  },
];
