"""The SQL of the append-only triggers without escape (used by the games and moderation
migrations)."""

FUNCTION = """
CREATE OR REPLACE FUNCTION mascarade_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'The table % is append-only: % refused.', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;
"""


def protect(table: str) -> str:
    name = f"{table}_refuse_change"
    return FUNCTION + f"""
DROP TRIGGER IF EXISTS {name} ON {table};
CREATE TRIGGER {name} BEFORE UPDATE OR DELETE ON {table}
    FOR EACH ROW EXECUTE FUNCTION mascarade_append_only();
ALTER TABLE {table} ENABLE ALWAYS TRIGGER {name};
"""


def unprotect(table: str) -> str:
    return f"DROP TRIGGER IF EXISTS {table}_refuse_change ON {table};"
