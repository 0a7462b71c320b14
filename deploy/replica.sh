#!/usr/bin/env bash
# A local PostgreSQL hot standby of the primary, for the replica tests and for trying
# DATABASE_REPLICA_URL on one machine (docs/tasks/replica.md).
#
#   deploy/replica.sh start    base-backup the primary and start the standby (or start the
#                              standby already in REPLICA_DIR); prints its URL
#   deploy/replica.sh stop     stop the standby (its directory stays: start is quick)
#   deploy/replica.sh destroy  stop it, delete its directory and its replication slot
#   deploy/replica.sh status   whether it runs, and how far it has replayed
#
# Settings (environment): PRIMARY_HOST (127.0.0.1), PRIMARY_PORT (5432), PRIMARY_USER
# (postgres), REPLICA_PORT (5433), REPLICA_DIR ($TMPDIR/ratings-replica), PG_BIN (the
# newest /usr/lib/postgresql/*/bin). Run as root or as the postgres OS user: PostgreSQL's
# server refuses to run as root, so root runs it as postgres.
#
# The primary must allow replication connections: wal_level replica or logical (the
# default; changing it needs a restart, which this script does not do) and a pg_hba.conf
# line for "replication" from PRIMARY_HOST. If that line is missing, start adds
#   host replication all 127.0.0.1/32 trust
# to the primary's pg_hba.conf (the trust the local test server already gives every
# database) and reloads it; run again, it finds the line and changes nothing.
set -euo pipefail

PRIMARY_HOST=${PRIMARY_HOST:-127.0.0.1}
PRIMARY_PORT=${PRIMARY_PORT:-5432}
PRIMARY_USER=${PRIMARY_USER:-postgres}
REPLICA_PORT=${REPLICA_PORT:-5433}
REPLICA_DIR=${REPLICA_DIR:-${TMPDIR:-/tmp}/ratings-replica}
# The primary keeps the WAL the standby has not received yet in this replication slot (a
# busy primary would otherwise recycle it while the standby is paused or stopped, and the
# standby could never catch up). destroy drops it: a slot left behind keeps WAL forever.
SLOT=${REPLICA_SLOT:-ratings_replica_$REPLICA_PORT}
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}

say() { printf 'replica: %s\n' "$*" >&2; }

# Commands that touch the standby's files or server run as its owner.
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

primary_sql() {
    psql -X -q -At -h "$PRIMARY_HOST" -p "$PRIMARY_PORT" -U "$PRIMARY_USER" -d postgres -c "$1"
}

allow_replication() {
    local level
    level=$(primary_sql "SHOW wal_level")
    if [ "$level" = minimal ]; then
        say "the primary has wal_level = minimal: set it to replica and restart it"
        exit 1
    fi
    if [ "$(primary_sql "SHOW max_wal_senders")" = 0 ]; then
        say "the primary has max_wal_senders = 0: raise it and restart it"
        exit 1
    fi
    local rules
    rules=$(primary_sql "SELECT count(*) FROM pg_hba_file_rules
        WHERE 'replication' = ANY(database) AND error IS NULL
          AND (type = 'local' OR address = '$PRIMARY_HOST' OR address IS NULL)")
    if [ "$rules" = 0 ]; then
        local hba
        hba=$(primary_sql "SHOW hba_file")
        say "allowing replication from $PRIMARY_HOST in $hba (and reloading the primary)"
        printf '\n# Local hot standby (deploy/replica.sh)\nhost replication all %s/32 trust\n' \
            "$PRIMARY_HOST" >>"$hba"
        primary_sql "SELECT pg_reload_conf()" >/dev/null
    fi
}

# The settings a hot standby must have at least the primary's values of.
standby_conf() {
    local name
    cat <<EOF
# Written by deploy/replica.sh: a hot standby of $PRIMARY_HOST:$PRIMARY_PORT.
port = $REPLICA_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$REPLICA_DIR'
hot_standby = on
shared_buffers = 32MB
logging_collector = off
EOF
    for name in max_connections max_worker_processes max_wal_senders \
        max_prepared_transactions max_locks_per_transaction; do
        echo "$name = $(primary_sql "SHOW $name")"
    done
}

drop_slot() {
    primary_sql "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
        WHERE slot_name = '$SLOT' AND NOT active" >/dev/null
}

running() {
    [ -f "$REPLICA_DIR/postmaster.pid" ] && as_owner "$PG_BIN/pg_ctl" -D "$REPLICA_DIR" status >/dev/null 2>&1
}

start() {
    if running; then
        say "already running on port $REPLICA_PORT ($REPLICA_DIR)"
    else
        if [ ! -f "$REPLICA_DIR/standby.signal" ]; then
            allow_replication
            rm -rf "$REPLICA_DIR"
            mkdir -p "$REPLICA_DIR"
            [ "$(id -u)" = 0 ] && chown postgres: "$REPLICA_DIR"
            chmod 700 "$REPLICA_DIR"
            say "base backup of $PRIMARY_HOST:$PRIMARY_PORT into $REPLICA_DIR"
            drop_slot
            # -R: standby.signal and primary_conninfo; -X stream: the WAL of the copy too;
            # -C -S: the slot, created and named in the standby's settings.
            as_owner "$PG_BIN/pg_basebackup" -h "$PRIMARY_HOST" -p "$PRIMARY_PORT" \
                -U "$PRIMARY_USER" -D "$REPLICA_DIR" -R -X stream -c fast -C -S "$SLOT"
            # A packaged server keeps its configuration outside the data directory: the
            # standby gets its own.
            standby_conf | as_owner tee "$REPLICA_DIR/postgresql.conf" >/dev/null
            printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' |
                as_owner tee "$REPLICA_DIR/pg_hba.conf" >/dev/null
            : | as_owner tee "$REPLICA_DIR/pg_ident.conf" >/dev/null
        fi
        as_owner "$PG_BIN/pg_ctl" -D "$REPLICA_DIR" -l "$REPLICA_DIR/server.log" -w -t 60 start >/dev/null
    fi
    for _ in $(seq 1 60); do
        if [ "$(psql -X -At -h 127.0.0.1 -p "$REPLICA_PORT" -U "$PRIMARY_USER" -d postgres \
            -c "SELECT pg_is_in_recovery()" 2>/dev/null)" = t ]; then
            echo "postgres://$PRIMARY_USER@127.0.0.1:$REPLICA_PORT/"
            return 0
        fi
        sleep 1
    done
    say "the standby did not come up; its log:"
    tail -n 30 "$REPLICA_DIR/server.log" >&2 || true
    exit 1
}

stop() {
    if running; then
        as_owner "$PG_BIN/pg_ctl" -D "$REPLICA_DIR" -m fast -w stop >/dev/null
        say "stopped"
    fi
}

status() {
    if running; then
        psql -X -At -h 127.0.0.1 -p "$REPLICA_PORT" -U "$PRIMARY_USER" -d postgres -c \
            "SELECT 'running on port $REPLICA_PORT; replayed up to ' || pg_last_wal_replay_lsn()
                    || CASE WHEN pg_is_wal_replay_paused() THEN ' (replay paused)' ELSE '' END"
    else
        echo "not running"
        return 3
    fi
}

case "${1:-}" in
start) start ;;
stop) stop ;;
destroy)
    stop
    rm -rf "$REPLICA_DIR"
    drop_slot
    ;;
status) status ;;
*)
    echo "usage: $0 start|stop|destroy|status" >&2
    exit 2
    ;;
esac
