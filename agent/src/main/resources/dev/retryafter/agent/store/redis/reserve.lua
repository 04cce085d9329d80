-- Virtual scheduling (GCRA): the host's next free slot is `next`; a caller gets max(now, next, nb),
-- bounded by max-wait, and moves `next` one interval past it. All callers share the one schedule,
-- served in the order Redis runs their scripts.
-- KEYS: hash, admitted. ARGV: ttl, interval, max-wait, admitted, bucket, window.
-- Returns {wait, not-before remaining, hold remaining, hold reason}.
flush(KEYS[1], KEYS[2], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]))
local h = redis.call('HMGET', KEYS[1], 'next', 'nb', 'hold', 'hold-reason')
local nxt, nb, hold = n(h[1]), n(h[2]), n(h[3])
local interval, maxWait = tonumber(ARGV[2]), tonumber(ARGV[3])
local slot = math.min(math.max(now, nxt, nb), now + maxWait)
if interval > 0 then
  redis.call('HSET', KEYS[1], 'next', d(math.max(nxt, slot + interval)), 'v', '1')
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
end
return {slot - now, nb - now, hold - now, h[4] or ''}
