import type { Migration } from '#shared/sqlite.ts';

/**
 * Schema of the portal's data on PostgreSQL (DATABASE_URL). Append only: a released migration is
 * never edited. Version 1 holds what SQLite reached in its versions 1 to 8 (migrations.ts), with
 * the same tables, columns, keys, checks and delete rules; a later change is added to both lists.
 *
 * Differences of type only: BIGINT epoch milliseconds, BOOLEAN flags, and a `seq` identity
 * column where the SQLite queries order by rowid (insertion order within one millisecond). Ids
 * and emails compare bytewise (COLLATE "C"), as in SQLite, whatever the database's locale.
 */
export const portalPostgresMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'the portal schema of SQLite versions 1-8',
    up: `
      CREATE TABLE users (
        id TEXT COLLATE "C" PRIMARY KEY,
        email TEXT COLLATE "C" NOT NULL,
        name TEXT NOT NULL,
        password_hash TEXT,
        current_team_id TEXT COLLATE "C",
        created_at BIGINT NOT NULL,
        session_version INTEGER NOT NULL DEFAULT 0,
        CONSTRAINT users_email_unique UNIQUE (email)
      );
      CREATE TABLE oauth_accounts (
        provider TEXT NOT NULL,
        provider_account_id TEXT NOT NULL,
        user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (provider, provider_account_id)
      );
      CREATE INDEX oauth_accounts_by_user ON oauth_accounts(user_id);
      CREATE TABLE teams (
        id TEXT COLLATE "C" PRIMARY KEY,
        name TEXT NOT NULL,
        personal BOOLEAN NOT NULL,
        created_at BIGINT NOT NULL,
        record_sessions BOOLEAN NOT NULL DEFAULT FALSE
      );
      -- A user's current team is a hint: it goes (NULL) with the team. Checked at commit, since a
      -- new user names their personal team before it is inserted in the same transaction.
      ALTER TABLE users ADD CONSTRAINT users_current_team_fk FOREIGN KEY (current_team_id)
        REFERENCES teams(id) ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED;
      CREATE INDEX users_by_current_team ON users(current_team_id);
      CREATE TABLE memberships (
        team_id TEXT COLLATE "C" NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        created_at BIGINT NOT NULL,
        PRIMARY KEY (team_id, user_id)
      );
      CREATE INDEX memberships_by_user ON memberships(user_id);
      CREATE TABLE invites (
        id TEXT COLLATE "C" PRIMARY KEY,
        team_id TEXT COLLATE "C" NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        token_hash TEXT COLLATE "C" NOT NULL UNIQUE,
        role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
        created_by TEXT COLLATE "C" NOT NULL REFERENCES users(id),
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        used_at BIGINT,
        used_by TEXT COLLATE "C" REFERENCES users(id),
        revoked_at BIGINT,
        seq BIGINT GENERATED ALWAYS AS IDENTITY
      );
      CREATE INDEX invites_by_team ON invites(team_id);
      CREATE INDEX invites_by_creator ON invites(created_by);
      CREATE INDEX invites_by_user ON invites(used_by);

      CREATE TABLE team_keys (
        id TEXT COLLATE "C" PRIMARY KEY,
        team_id TEXT COLLATE "C" NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('issued', 'external')),
        service_key_id TEXT,
        hint_prefix TEXT NOT NULL,
        hint_last4 TEXT NOT NULL,
        sealed TEXT NOT NULL,
        is_default BOOLEAN NOT NULL DEFAULT FALSE,
        created_by TEXT COLLATE "C" REFERENCES users(id) ON DELETE SET NULL,
        created_at BIGINT NOT NULL,
        last_used_at BIGINT,
        revoked_at BIGINT
      );
      CREATE INDEX team_keys_by_team ON team_keys(team_id);
      CREATE UNIQUE INDEX team_keys_one_default ON team_keys(team_id) WHERE is_default;
      CREATE TABLE audit_events (
        id TEXT COLLATE "C" PRIMARY KEY,
        team_id TEXT COLLATE "C" NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        actor_id TEXT COLLATE "C" REFERENCES users(id) ON DELETE SET NULL,
        actor_label TEXT,
        action TEXT NOT NULL,
        subject TEXT NOT NULL,
        detail TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX audit_events_by_team ON audit_events(team_id, created_at);
      CREATE INDEX audit_events_by_actor ON audit_events(team_id, actor_id, created_at);

      CREATE TABLE sign_in_failures (
        scope TEXT COLLATE "C" PRIMARY KEY,
        failures INTEGER NOT NULL,
        window_started_at BIGINT NOT NULL,
        locked_until BIGINT
      );

      CREATE TABLE instance_history (
        id TEXT COLLATE "C" PRIMARY KEY,
        team_id TEXT COLLATE "C" NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        started_by TEXT COLLATE "C" REFERENCES users(id) ON DELETE SET NULL,
        started_by_name TEXT NOT NULL,
        key_name TEXT NOT NULL,
        started_at BIGINT NOT NULL,
        ended_at BIGINT NOT NULL,
        reason TEXT NOT NULL,
        message TEXT NOT NULL,
        seq BIGINT GENERATED ALWAYS AS IDENTITY
      );
      CREATE INDEX instance_history_by_team ON instance_history(team_id, ended_at);

      CREATE TABLE recent_searches (
        user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        query TEXT NOT NULL,
        language TEXT NOT NULL,
        searched_at BIGINT NOT NULL,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        PRIMARY KEY (user_id, query, language)
      );
      CREATE INDEX recent_searches_by_user ON recent_searches(user_id, searched_at);

      CREATE TABLE password_resets (
        token_hash TEXT COLLATE "C" PRIMARY KEY,
        user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        used_at BIGINT
      );
      CREATE INDEX password_resets_by_user ON password_resets(user_id);

      CREATE TABLE control_history (
        browser_id TEXT COLLATE "C" NOT NULL,
        team_id TEXT COLLATE "C" NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        at BIGINT NOT NULL,
        user_id TEXT,
        name TEXT,
        seq BIGINT GENERATED ALWAYS AS IDENTITY
      );
      CREATE INDEX control_history_by_browser ON control_history(team_id, browser_id, at);
      CREATE INDEX control_history_by_age ON control_history(at);
      CREATE TABLE live_links (
        id TEXT COLLATE "C" PRIMARY KEY,
        team_id TEXT COLLATE "C" NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        instance_id TEXT COLLATE "C" NOT NULL,
        token_hash TEXT COLLATE "C" NOT NULL UNIQUE,
        mode TEXT NOT NULL CHECK (mode IN ('watch', 'control')),
        label TEXT NOT NULL,
        created_by TEXT COLLATE "C" REFERENCES users(id) ON DELETE SET NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        revoked_at BIGINT,
        seq BIGINT GENERATED ALWAYS AS IDENTITY
      );
      CREATE INDEX live_links_by_instance ON live_links(team_id, instance_id);`,
  },
  {
    version: 2,
    name: 'upstream proxies per team (SQLite version 9)',
    up: `
      CREATE TABLE team_proxies (
        id TEXT COLLATE "C" PRIMARY KEY,
        team_id TEXT COLLATE "C" NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        scheme TEXT NOT NULL CHECK (scheme IN ('http', 'https', 'socks5')),
        host TEXT NOT NULL,
        port INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
        has_credentials BOOLEAN NOT NULL,
        sealed TEXT NOT NULL,
        created_by TEXT COLLATE "C" REFERENCES users(id) ON DELETE SET NULL,
        created_at BIGINT NOT NULL
      );
      CREATE UNIQUE INDEX team_proxies_name ON team_proxies(team_id, name);
      CREATE INDEX team_proxies_by_creator ON team_proxies(created_by);`,
  },
  {
    version: 3,
    name: "the service's id of each ended browser (SQLite version 10)",
    up: `
      ALTER TABLE instance_history ADD COLUMN browser_id TEXT COLLATE "C";
      CREATE INDEX instance_history_by_browser ON instance_history(team_id, browser_id);`,
  },
  {
    version: 4,
    name: 'ended browsers forgotten after a month (SQLite version 11)',
    up: `CREATE INDEX instance_history_by_age ON instance_history(ended_at);`,
  },
];
