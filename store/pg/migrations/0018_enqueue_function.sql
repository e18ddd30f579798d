-- enqueue(queue, payload, ...): the Go client's insert as one SQL
-- function, so that a service in any language enqueues a job inside its
-- own transaction with one statement (docs/USAGE.md, "Enqueue from SQL").
-- It checks what store.ValidateNewJob checks and refuses bad input with
-- SQLSTATE 22023 (invalid_parameter_value, which store/pg reports as
-- store.ErrInvalid) and a message naming the input, before writing
-- anything. A job whose unique key a row holds is not inserted: the
-- function returns that row's id, as worker.Enqueue does.
--
-- The migration runs with search_path set to the store's schema: the
-- function is created there and keeps that search_path (FROM CURRENT),
-- so it finds its tables and names its notification channel
-- (<schema>_available, pg.Store's chAvailable) whatever the caller's
-- search_path is.
--
-- Not taken, and why (docs/USAGE.md): a unique period (its stored key is
-- rendered by Go's time and duration formats), a sequence key (its lock
-- key is derived in Go from the schema) and parents (a job with parents
-- is checked and linked by the store's dependency code).
CREATE FUNCTION enqueue(
    queue text,
    payload jsonb,
    priority integer DEFAULT 0,
    unique_key text DEFAULT NULL,
    scheduled_at timestamptz DEFAULT NULL,
    metadata jsonb DEFAULT '{}',
    unique_while text[] DEFAULT '{}',
    max_attempts integer DEFAULT NULL,
    partition_key text DEFAULT NULL
) RETURNS uuid
LANGUAGE plpgsql VOLATILE
SET search_path FROM CURRENT
AS $$
#variable_conflict use_column
DECLARE
    now_ timestamptz := now();
    payload_text text := enqueue.payload::text;
    covered smallint := 0;
    stored_key text;
    status_ text;
    new_id uuid;
BEGIN
    -- store/validate.go's checks, in its order; names.Check's limits.
    IF enqueue.queue IS NULL OR octet_length(enqueue.queue) NOT BETWEEN 1 AND 128 THEN
        RAISE EXCEPTION 'tickwork.enqueue: queue name % must be 1 to 128 bytes', coalesce(quote_literal(left(enqueue.queue, 64)), 'NULL')
            USING ERRCODE = '22023';
    END IF;
    IF enqueue.priority IS NULL OR enqueue.priority NOT BETWEEN 0 AND 9 THEN
        RAISE EXCEPTION 'tickwork.enqueue: priority % is outside 0 to 9 (queue %)', coalesce(enqueue.priority::text, 'NULL'),
            quote_literal(enqueue.queue) USING ERRCODE = '22023';
    END IF;
    IF enqueue.max_attempts NOT BETWEEN 0 AND 1000 THEN
        RAISE EXCEPTION 'tickwork.enqueue: max attempts % is outside 0 (none) to 1000 (queue %)', enqueue.max_attempts,
            quote_literal(enqueue.queue) USING ERRCODE = '22023';
    END IF;
    IF octet_length(enqueue.partition_key) > 200 THEN
        RAISE EXCEPTION 'tickwork.enqueue: partition key is % bytes, more than the 200 allowed (queue %)',
            octet_length(enqueue.partition_key), quote_literal(enqueue.queue) USING ERRCODE = '22023';
    END IF;
    IF enqueue.scheduled_at < '0001-01-01 00:00:00+00' OR enqueue.scheduled_at > '9999-12-31 23:59:59.999999+00' THEN
        RAISE EXCEPTION 'tickwork.enqueue: scheduled_at % is outside the years 1 to 9999 (queue %)', enqueue.scheduled_at,
            quote_literal(enqueue.queue) USING ERRCODE = '22023';
    END IF;
    IF enqueue.payload IS NULL THEN
        RAISE EXCEPTION 'tickwork.enqueue: payload is NULL; give a JSON value (queue %)', quote_literal(enqueue.queue)
            USING ERRCODE = '22023';
    END IF;
    -- The size of the text stored: jsonb's rendering of the payload.
    IF octet_length(payload_text) > 1048576 THEN
        RAISE EXCEPTION 'tickwork.enqueue: payload is % bytes, more than the 1048576 allowed (queue %)',
            octet_length(payload_text), quote_literal(enqueue.queue) USING ERRCODE = '22023';
    END IF;
    -- Handlers read metadata as an object of strings (worker.Job.Metadata).
    IF enqueue.metadata IS NULL OR jsonb_typeof(enqueue.metadata) <> 'object' THEN
        RAISE EXCEPTION 'tickwork.enqueue: metadata must be a JSON object, not %', coalesce(jsonb_typeof(enqueue.metadata), 'NULL')
            USING ERRCODE = '22023';
    END IF;
    IF octet_length(enqueue.metadata::text) > 1048576 THEN
        RAISE EXCEPTION 'tickwork.enqueue: metadata is % bytes, more than the 1048576 allowed (queue %)',
            octet_length(enqueue.metadata::text), quote_literal(enqueue.queue) USING ERRCODE = '22023';
    END IF;
    -- store/unique.go: a key covers scheduled, available and running, and
    -- completed or cancelled if unique_while names them; the bits are the
    -- order of store.statusOrder and of jobs_unique_idx's CASE.
    IF coalesce(enqueue.unique_key, '') = '' THEN
        IF cardinality(enqueue.unique_while) > 0 THEN
            RAISE EXCEPTION 'tickwork.enqueue: unique_while without a unique key (queue %)', quote_literal(enqueue.queue)
                USING ERRCODE = '22023';
        END IF;
    ELSE
        IF octet_length(enqueue.unique_key) > 256 THEN
            RAISE EXCEPTION 'tickwork.enqueue: unique key % is longer than 256 bytes', quote_literal(left(enqueue.unique_key, 64))
                USING ERRCODE = '22023';
        END IF;
        IF enqueue.unique_while IS NULL
           OR EXISTS (SELECT FROM unnest(enqueue.unique_while) AS s
                      WHERE s IS NULL OR s NOT IN ('scheduled', 'available', 'running', 'completed', 'cancelled')) THEN
            RAISE EXCEPTION 'tickwork.enqueue: unique key % covers %: it must cover scheduled,available,running and may add completed or cancelled only',
                quote_literal(left(enqueue.unique_key, 64)), coalesce(enqueue.unique_while::text, 'NULL') USING ERRCODE = '22023';
        END IF;
        covered := 7 | CASE WHEN 'completed' = ANY (enqueue.unique_while) THEN 8 ELSE 0 END
                     | CASE WHEN 'cancelled' = ANY (enqueue.unique_while) THEN 64 ELSE 0 END;
        -- names.StoredKey: the key, then the covered statuses in order.
        stored_key := enqueue.unique_key || '|scheduled,available,running'
            || CASE WHEN covered & 8 <> 0 THEN ',completed' ELSE '' END
            || CASE WHEN covered & 64 <> 0 THEN ',cancelled' ELSE '' END;
    END IF;

    status_ := CASE WHEN enqueue.scheduled_at IS NULL OR enqueue.scheduled_at <= now_ THEN 'available' ELSE 'scheduled' END;
    -- A ULID (clockrng.NewULID): 48 bits of milliseconds of the
    -- transaction's time, then random bits (gen_random_uuid's 122).
    new_id := encode(overlay(uuid_send(gen_random_uuid())
                     PLACING substring(int8send(floor(extract(epoch FROM now_) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 'hex')::uuid;
    -- ON CONFLICT's predicate must say what jobs_unique_idx's says
    -- (store/pg/jobs_unique.go, holdsKey).
    INSERT INTO jobs AS j (id, queue, payload, metadata, status, attempt, created_at, scheduled_at,
                           unique_key, unique_states, priority, max_attempts, partition_key)
    VALUES (new_id, enqueue.queue, payload_text::json, enqueue.metadata::json, status_, 0, now_,
            coalesce(enqueue.scheduled_at, now_), stored_key, nullif(covered, 0), enqueue.priority,
            nullif(enqueue.max_attempts, 0), nullif(enqueue.partition_key, ''))
    ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL AND (unique_states & CASE status
        WHEN 'scheduled' THEN 1 WHEN 'available' THEN 2 WHEN 'running' THEN 4 WHEN 'completed' THEN 8
        WHEN 'failed' THEN 16 WHEN 'lost' THEN 32 WHEN 'cancelled' THEN 64 ELSE 128 END) <> 0
    DO NOTHING
    RETURNING j.id INTO new_id;
    IF new_id IS NULL THEN
        SELECT j.id INTO new_id FROM jobs AS j
        WHERE j.unique_key = stored_key AND (j.unique_states & CASE j.status
            WHEN 'scheduled' THEN 1 WHEN 'available' THEN 2 WHEN 'running' THEN 4 WHEN 'completed' THEN 8
            WHEN 'failed' THEN 16 WHEN 'lost' THEN 32 WHEN 'cancelled' THEN 64 ELSE 128 END) <> 0;
        IF new_id IS NULL THEN -- ON CONFLICT saw the holder; it changed status since (jobs_unique.go's holders)
            RAISE EXCEPTION 'tickwork.enqueue: the row holding unique key % left it meanwhile; retry',
                quote_literal(left(enqueue.unique_key, 64)) USING ERRCODE = '40001';
        END IF;
        RETURN new_id;
    END IF;
    IF status_ = 'available' THEN
        PERFORM pg_notify(current_schema() || '_available', enqueue.queue);
    END IF;
    RETURN new_id;
END
$$;
