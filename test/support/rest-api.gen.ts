// Generated from /openapi.json by `npx tsx src/server/rest/openapi.ts`; do not edit.
export interface paths {
    "/schema.graphql": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The GraphQL schema (SDL)
         * @description For code generators. Carries an ETag: ask again with If-None-Match and get 304 until the schema changes.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The schema in SDL. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/graphql": string;
                    };
                };
                /** @description Unchanged since the ETag given in If-None-Match. */
                304: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List pools
         * @description Pools filtered, searched and sorted, a page at a time. Paging metadata is in the headers (the body is the array).
         */
        get: {
            parameters: {
                query?: {
                    sort_by?: "END_DATE" | "CREATION_DATE" | "OLD_CREATION_DATE" | "VOLUME_HIGH" | "VOLUME_LOW";
                    /** @description Pool states; several mean any of them: repeated, `filter_by[]=` or comma-separated. */
                    filter_by?: ("ACTIVE" | "ENDED" | "RESOLVED" | "NOT_RESOLVED")[];
                    /** @description Full-text search over title and description: every word must start a word of either. */
                    query?: string;
                    streak_id?: string;
                    /** @description Pools whose reference date falls on the same UTC day; a date alone (`2026-03-01`) works too. */
                    reference_date?: string;
                    created_by?: string;
                    /** @description Accepted as the interface’s clients send it: every pool here stakes the one stake mint (`stake_token_mint`). */
                    mint_address?: string;
                    /** @description Relations to embed; dotted paths embed a relation of the predictions (and the predictions with them). Repeated, `includes[]=` or comma-separated (`includes=user,predictions`). */
                    includes?: ("user" | "resolution" | "image" | "streak" | "predictions" | "predictions.user" | "predictions.reward" | "predictions.streak" | "predictions.pool" | "predictions.resolution")[];
                    /** @description Embedded predictions per pool (newest first) when `includes` has predictions. */
                    predictions_limit?: number;
                    /** @description Page size. */
                    limit?: number;
                    /** @description Rows to skip; not with `cursor`. */
                    offset?: number;
                    /** @description Continue after this position: the `X-Next-Cursor` header (or `Link` rel="next") of the previous page. */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        /** @description Pools matching the query, all pages together. */
                        "x-total-count"?: number;
                        /** @description Pass as `cursor` for the next page; absent on the last page. */
                        "x-next-cursor"?: string;
                        /** @description RFC 8288 `<…>; rel="next"` of the next page; absent on the last page. */
                        link?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Pool"][];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pools/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a pool */
        get: {
            parameters: {
                query?: {
                    /** @description Relations to embed; dotted paths embed a relation of the predictions (and the predictions with them). Repeated, `includes[]=` or comma-separated (`includes=user,predictions`). */
                    includes?: ("user" | "resolution" | "image" | "streak" | "predictions" | "predictions.user" | "predictions.reward" | "predictions.streak" | "predictions.pool" | "predictions.resolution")[];
                    /** @description Embedded predictions per pool (newest first) when `includes` has predictions. */
                    predictions_limit?: number;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A pool asking for a numeric outcome; embedded relations appear only when listed in `includes`. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Pool"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/streak/pools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the pools of a streak
         * @description All pools of the streak, newest first, not filtered by the caller’s participation. Paging metadata is in the headers, as for GET /pools.
         */
        get: {
            parameters: {
                query: {
                    streak_id: string;
                    /** @description Only pools whose prediction window has ended (`true`/`1`). */
                    past_only?: boolean;
                    /** @description Only `false` (or absent) is served: the list is never filtered by the caller’s participation, so `true` is refused rather than ignored. */
                    participated_only?: false;
                    /** @description Relations to embed; dotted paths embed a relation of the predictions (and the predictions with them). Repeated, `includes[]=` or comma-separated (`includes=user,predictions`). */
                    includes?: ("user" | "resolution" | "image" | "streak" | "predictions" | "predictions.user" | "predictions.reward" | "predictions.streak" | "predictions.pool" | "predictions.resolution")[];
                    /** @description Embedded predictions per pool (newest first) when `includes` has predictions. */
                    predictions_limit?: number;
                    /** @description Page size. */
                    limit?: number;
                    /** @description Rows to skip; not with `cursor`. */
                    offset?: number;
                    /** @description Continue after this position: the `X-Next-Cursor` header (or `Link` rel="next") of the previous page. */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        /** @description Pools matching the query, all pages together. */
                        "x-total-count"?: number;
                        /** @description Pass as `cursor` for the next page; absent on the last page. */
                        "x-next-cursor"?: string;
                        /** @description RFC 8288 `<…>; rel="next"` of the next page; absent on the last page. */
                        link?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            pools: components["schemas"]["Pool"][];
                            streak: components["schemas"]["Streak"];
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/streak/user-details": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's progress in a streak and their streak rewards */
        get: {
            parameters: {
                query: {
                    streak_id: string;
                    /** @description Only claimed (true) or unclaimed (false) streak rewards; all when absent. */
                    is_claimed?: boolean;
                    /** @description At most this many streak rewards (all when absent). */
                    limit?: number;
                    /** @description Streak rewards to skip. */
                    offset?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            streak: components["schemas"]["Streak"];
                            current_streak_count: number;
                            /** @enum {string} */
                            last_streak_event: "NONE" | "QUALIFIED" | "RESET" | "REWARDED";
                            /** Format: date-time */
                            last_pool_participated_at: string | null;
                            /** @description Each with its streak embedded. */
                            streak_rewards: components["schemas"]["StreakReward"][];
                            current_streak_scores: number[];
                            /** Format: uuid */
                            last_processed_pool_id: string | null;
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/transactions/prediction": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Build: place a prediction (step 1 of 2) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** Format: uuid */
                        pool_id: string;
                        /** @description The stake, in whole tokens (JSON number). */
                        stake: number;
                        /** @description The predicted value, on the pool’s grid. */
                        value: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            preview: components["schemas"]["TransactionPreview"];
                            /** @description Base64 wire transaction; the relayer pays the fee, your signature slot is empty. */
                            transaction: string;
                            /** @description Pass it back unchanged with the signed transaction. */
                            proof: string;
                            /**
                             * Format: date-time
                             * @description Submit before this (and before the blockhash expires, about a minute).
                             */
                            expires_at: string;
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/transactions/prediction/submit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit: place a prediction (step 2 of 2)
         * @description The build parameters are optional: the proof binds them; those given must equal the build’s (else PROOF_INVALID).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The built transaction, signed by the wallet, base64. */
                        signed_transaction: string;
                        /** @description The proof returned by the build, unchanged. */
                        proof: string;
                        /** Format: uuid */
                        pool_id?: string;
                        /** @description The stake, in whole tokens (JSON number). */
                        stake?: number;
                        /** @description The predicted value, on the pool’s grid. */
                        value?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            signature: string;
                            /** @description The prediction as the transaction left it. */
                            prediction: components["schemas"]["Prediction"] | null;
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/transactions/stake/update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Build: change the stake of your prediction (step 1 of 2) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** Format: uuid */
                        prediction_id: string;
                        /** @description The new total stake, in whole tokens (JSON number). */
                        stake: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            preview: components["schemas"]["TransactionPreview"];
                            /** @description Base64 wire transaction; the relayer pays the fee, your signature slot is empty. */
                            transaction: string;
                            /** @description Pass it back unchanged with the signed transaction. */
                            proof: string;
                            /**
                             * Format: date-time
                             * @description Submit before this (and before the blockhash expires, about a minute).
                             */
                            expires_at: string;
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/transactions/stake/update/submit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit: change the stake of your prediction (step 2 of 2)
         * @description The build parameters are optional: the proof binds them; those given must equal the build’s (else PROOF_INVALID).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The built transaction, signed by the wallet, base64. */
                        signed_transaction: string;
                        /** @description The proof returned by the build, unchanged. */
                        proof: string;
                        /** Format: uuid */
                        prediction_id?: string;
                        /** @description The new total stake, in whole tokens (JSON number). */
                        stake?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            signature: string;
                            /** @description The prediction as the transaction left it. */
                            prediction: components["schemas"]["Prediction"] | null;
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/transactions/prediction/update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Build: change the value of your prediction (step 1 of 2) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** Format: uuid */
                        prediction_id: string;
                        /** @description The new predicted value, on the pool’s grid. */
                        value: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            preview: components["schemas"]["TransactionPreview"];
                            /** @description Base64 wire transaction; the relayer pays the fee, your signature slot is empty. */
                            transaction: string;
                            /** @description Pass it back unchanged with the signed transaction. */
                            proof: string;
                            /**
                             * Format: date-time
                             * @description Submit before this (and before the blockhash expires, about a minute).
                             */
                            expires_at: string;
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/transactions/prediction/update/submit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit: change the value of your prediction (step 2 of 2)
         * @description The build parameters are optional: the proof binds them; those given must equal the build’s (else PROOF_INVALID).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The built transaction, signed by the wallet, base64. */
                        signed_transaction: string;
                        /** @description The proof returned by the build, unchanged. */
                        proof: string;
                        /** Format: uuid */
                        prediction_id?: string;
                        /** @description The new predicted value, on the pool’s grid. */
                        value?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            signature: string;
                            /** @description The prediction as the transaction left it. */
                            prediction: components["schemas"]["Prediction"] | null;
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/transactions/withdraw": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Build: withdraw stake tokens to an external wallet (step 1 of 2) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The receiving wallet (base58). */
                        to_address: string;
                        /** @description The amount, in whole tokens (JSON number). */
                        amount: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            preview: components["schemas"]["TransactionPreview"];
                            /** @description Base64 wire transaction; the relayer pays the fee, your signature slot is empty. */
                            transaction: string;
                            /** @description Pass it back unchanged with the signed transaction. */
                            proof: string;
                            /**
                             * Format: date-time
                             * @description Submit before this (and before the blockhash expires, about a minute).
                             */
                            expires_at: string;
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/transactions/withdraw/submit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit: withdraw stake tokens to an external wallet (step 2 of 2)
         * @description The build parameters are optional: the proof binds them; those given must equal the build’s (else PROOF_INVALID).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The built transaction, signed by the wallet, base64. */
                        signed_transaction: string;
                        /** @description The proof returned by the build, unchanged. */
                        proof: string;
                        /** @description The receiving wallet (base58). */
                        to_address?: string;
                        /** @description The amount, in whole tokens (JSON number). */
                        amount?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            signature: string;
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/transactions/claim-reward": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Claim your reward or refund of a resolved pool (one step; the service signs) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** Format: uuid */
                        reward_id: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            signature: string;
                            reward: components["schemas"]["Reward"];
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/transactions/claim-streak-reward": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Claim one of your streak rewards (one step; the service signs) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** Format: uuid */
                        streak_reward_id: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            signature: string;
                            streak_reward: components["schemas"]["StreakReward"];
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open a session with an API key
         * @description The key comes in the body (`api_key`) or the `x-api-key` header (`trepa-api-key`, the SDK’s, also works). Sets the session cookies.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        api_key?: string;
                    };
                };
            };
            responses: {
                /** @description A session. Send access_token as `Authorization: Bearer`; the response also sets HttpOnly session cookies. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            access_token: string;
                            /** Format: date-time */
                            access_token_expires_at: string;
                            /** @description Single use: POST /auth/refresh before the access token expires. */
                            refresh_token: string;
                            /** Format: date-time */
                            refresh_token_expires_at: string;
                            user: components["schemas"]["User"];
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the session
         * @description Spends the refresh token (`refresh_token` in the body, else the refresh cookie) and issues a new pair.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        refresh_token?: string;
                    };
                };
            };
            responses: {
                /** @description A session. Send access_token as `Authorization: Bearer`; the response also sets HttpOnly session cookies. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            access_token: string;
                            /** Format: date-time */
                            access_token_expires_at: string;
                            /** @description Single use: POST /auth/refresh before the access token expires. */
                            refresh_token: string;
                            /** Format: date-time */
                            refresh_token_expires_at: string;
                            user: components["schemas"]["User"];
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * End the session
         * @description Ends the session of `refresh_token` (or the refresh cookie), else the current one, and clears the cookies.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        refresh_token?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            signed_out: boolean;
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in user */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A wallet owner using the service. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["User"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/wallet/challenge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Wallet sign-in, step 1: a message for the wallet to sign */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        wallet_address: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Sign exactly these bytes (UTF-8). */
                            message: string;
                            nonce: string;
                            /** Format: date-time */
                            expires_at: string;
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/wallet/sign-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Wallet sign-in, step 2: the signed challenge opens a session */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        wallet_address: string;
                        /** @description The challenge message, exactly as returned. */
                        message: string;
                        /** @description Ed25519 signature of the message bytes, base58 or base64. */
                        signature: string;
                    };
                };
            };
            responses: {
                /** @description A session. Send access_token as `Authorization: Bearer`; the response also sets HttpOnly session cookies. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            access_token: string;
                            /** Format: date-time */
                            access_token_expires_at: string;
                            /** @description Single use: POST /auth/refresh before the access token expires. */
                            refresh_token: string;
                            /** Format: date-time */
                            refresh_token_expires_at: string;
                            user: components["schemas"]["User"];
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an API key for the signed-in user
         * @description The key is shown in this answer only: keep it, and send it as `x-api-key` (or open a session with POST /auth/session).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The key itself, shown this once. */
                            api_key: string;
                            key: components["schemas"]["ApiKey"];
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mint test stake tokens to your wallet (embedded chain only) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Whole tokens, at most 10,000 a call. */
                        amount: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            signature: string;
                            /** @description Your token balance afterwards, in whole tokens. */
                            balance: number;
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/sol": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Airdrop test SOL to your wallet, for the rent of accounts it opens (embedded chain only) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Lamports, at most 1,000,000,000 (1 SOL) a call. */
                        lamports: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            signature: string;
                            /** @description Your SOL balance afterwards, in lamports. */
                            lamports: number;
                        };
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "4XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
                "5XX": {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description A wallet owner using the service. */
        User: {
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: date-time */
            last_seen_at: string | null;
            username: string;
            has_seen_tour: boolean;
            /** @enum {string} */
            role: "USER" | "ADMIN";
            wallet_address: string;
            /** Format: uuid */
            avatar_id: string | null;
            twitter_username: string | null;
            /** @description Only in your own record (GET /auth/me). */
            email?: string | null;
        };
        /** @description An uploaded image. */
        Image: {
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: uuid */
            user_id: string;
            url: string;
        };
        /** @description The outcome of a resolved pool. */
        Resolution: {
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: uuid */
            pool_id: string;
            result: number;
            median: number;
            /** @description Whole tokens. */
            protocol_fee: number;
            /** @description Whole tokens. */
            leftover: number;
        };
        /** @description A series of pools that rewards users who keep taking part. */
        Streak: {
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: uuid */
            last_processed_pool_id: string | null;
            streak_accumulator_account: string;
            title: string;
            fee_percentage: number;
            payout_percentage: number;
            bump: number;
            streak_count_required: number;
            min_precision_score_required: number;
            /** Format: date-time */
            last_sync_at: string | null;
            /** @description Whole tokens. */
            total_accumulated: number;
            /** @description Whole tokens. */
            available_balance: number;
            /** @description Whole tokens. */
            onchain_balance: number;
        };
        /** @description What a prediction earned when its pool was resolved. */
        Reward: {
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: uuid */
            prediction_id: string;
            precision_score: number;
            is_claimed: boolean;
            /** @enum {string} */
            type: "REWARD" | "REFUND";
            /** @description Whole tokens. */
            amount: number;
        };
        /** @description A user's predicted value on a pool, backed by a stake. */
        Prediction: {
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: uuid */
            pool_id: string;
            /** Format: uuid */
            user_id: string;
            pool_account: string;
            predictor_account: string;
            prediction_account: string;
            prediction: number;
            precision: number;
            stake_token_mint: string;
            decimals: number;
            last_applied_value_revision: number;
            last_applied_stake_revision: number;
            is_fee_payer: boolean;
            is_closed: boolean;
            bump: number;
            /** Format: date-time */
            last_sync_at: string | null;
            /** @description Whole tokens. */
            stake: number;
            user?: components["schemas"]["User"];
            reward?: components["schemas"]["Reward"] | null;
            streak?: components["schemas"]["Streak"] | null;
            pool?: components["schemas"]["Pool"];
            resolution?: components["schemas"]["Resolution"] | null;
        };
        /** @description A pool asking for a numeric outcome; embedded relations appear only when listed in `includes`. */
        Pool: {
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: uuid */
            created_by: string;
            /** Format: uuid */
            image_id: string | null;
            /** Format: uuid */
            streak_id: string | null;
            title: string;
            description: string;
            pool_account: string;
            resolution_source: string;
            /** @enum {string} */
            unit: "USD";
            max_roi: number;
            stake_token_mint: string;
            decimals: number;
            min_outcome: number;
            max_outcome: number;
            precision: number;
            step: number;
            /** Format: date-time */
            prediction_start_date: string;
            /** Format: date-time */
            prediction_end_date: string;
            /** Format: date-time */
            reference_date: string;
            /** @enum {string} */
            status: "ACTIVE" | "PREDICTIONS_FROZEN" | "CLAIMS_FROZEN" | "FROZEN";
            is_closed: boolean;
            indexed_prediction_update_count: number;
            platform_fee_rate: number;
            /** @description Whole tokens. */
            min_stake: number;
            /** @description Whole tokens. */
            max_stake: number;
            /** @description Whole tokens. */
            total_volume: number;
            user?: components["schemas"]["User"];
            resolution?: components["schemas"]["Resolution"] | null;
            image?: components["schemas"]["Image"] | null;
            streak?: components["schemas"]["Streak"] | null;
            /** @description Newest first, at most `predictions_limit`. */
            predictions?: components["schemas"]["Prediction"][];
        };
        /** @description A reward granted for completing a streak run. */
        StreakReward: {
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: uuid */
            streak_id: string;
            user_wallet_address: string;
            is_claimed: boolean;
            /** @description Whole tokens. */
            amount: number;
            streak?: components["schemas"]["Streak"];
        };
        /** @description An API key of a user (never the key itself). */
        ApiKey: {
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: uuid */
            user_id: string;
            name: string;
            /** @description SHA-256 of the key, hex. */
            key_hash: string;
            is_active: boolean;
            /** Format: date-time */
            last_used_at: string | null;
        };
        /** @description What the transaction will do, as the chain simulates it now: show it before the wallet signs. Public chain state only; nothing is signed or sent. */
        TransactionPreview: {
            /** @description False: submitting it would be refused, see failure. */
            succeeds: boolean;
            failure: {
                /** @description The chain’s error, JSON. */
                error: string;
                /** @description The program’s reason. */
                reason: string;
                logs: string[];
            } | null;
            /** @description Who pays the fee: the service’s relayer. */
            fee_payer: string;
            fee_lamports: number;
            /** @description Rent of the accounts it opens, in lamports, and who pays it. */
            rent: {
                account: string;
                payer: string;
                lamports: number;
            }[];
            instructions: {
                /** @description spl-token, associated-token, memo, system, or the program’s address. */
                program: string;
                program_id: string;
                /** @description transferChecked, createIdempotent, create, memo, transfer, or unknown. */
                name: string;
                accounts: {
                    role: string;
                    address: string;
                }[];
                /** @description Tokens it moves, whole. */
                amount: number | null;
                mint: string | null;
                lamports: number | null;
                memo: string | null;
            }[];
            /** @description Every account it writes: token balances in whole tokens (null: not a token account), SOL in lamports. */
            balance_changes: {
                account: string;
                owner: string | null;
                mint: string | null;
                before: number | null;
                after: number | null;
                change: number | null;
                lamports_before: number;
                lamports_after: number;
                lamports_change: number;
            }[];
        };
        /** @description Every failure: `code` from the error catalogue (docs/errors.md), which also sets the HTTP status. */
        Error: {
            error: {
                code: string;
                message: string;
                /** @description With BAD_USER_INPUT: the parameter at fault. */
                argumentName?: string;
                /** @description With RATE_LIMITED and OVERLOADED: seconds to wait (also the Retry-After header). */
                retryAfter?: number;
                /** @description With INTERNAL_SERVER_ERROR: the id of the request in the logs. */
                requestId?: string;
            } & {
                [key: string]: unknown;
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
