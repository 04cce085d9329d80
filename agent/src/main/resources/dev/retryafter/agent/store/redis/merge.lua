-- Knowledge merged in, as the engine's merge has it, every part optional ('' for none; moments as
-- offsets from now): later moments win; a hold's reason goes with the hold that wins, and no request
-- goes before a hold ends; what was learned later wins (an empty ceiling or rate keeps the fleet's);
-- the first verdict against the hints stands; an open streak replaces the fleet's only when that
-- began earlier or none is open; a finished streak is a bounded append, newest first, and one the
-- fleet has (the same record, begun within a second of it: a merge after an outage) is not added
-- twice. KEYS: hash, streaks. ARGV: ttl, capacity, not-before, next, costs-since, hold, hold reason,
-- learned, ceiling, refused rate, cycle, pace epoch, plateau before probing (0: the cubic curve),
-- window learned (0: none), hints distrusted, streak start, header ('-' for none), last refused
-- sent, refusals, paced (0/1), the verdict against the Retry-After header (the first stands), then
-- for each finished streak, oldest first, its start and its record. Returns 1.
local K, L, A = KEYS[1], KEYS[2], ARGV
local function later(field, off)
  if off == '' then return end
  local m, old = now + tonumber(off), tonumber(redis.call('HGET', K, field))
  if old == nil or m > old then redis.call('HSET', K, field, d(m)) end
end
later('nb', A[3]) later('next', A[4]) later('costs-since', A[5])
if A[6] ~= '' then
  local untilMs, hold = now + tonumber(A[6]), n(redis.call('HGET', K, 'hold'))
  if untilMs > hold then
    if hold <= now then redis.call('HINCRBY', K, 'holds', 1) end
    hold = untilMs
    redis.call('HSET', K, 'hold', d(hold), 'hold-reason', A[7])
  end
  later('nb', d(hold - now))
end
if A[8] ~= '' then
  local at, stored = now + tonumber(A[8]), tonumber(redis.call('HGET', K, 'learned-at'))
  if stored == nil or at >= stored then
    if A[9] ~= '' then redis.call('HSET', K, 'ceiling', A[9]) end
    if A[10] ~= '' then
      -- the plateau names the epoch it belongs to: an older agent that rewrites the pace leaves it behind, stale
      local epoch = d(now + tonumber(A[12]))
      redis.call('HSET', K, 'rate', A[10], 'cycle', A[11], 'epoch', epoch, 'probe', A[13] .. '@' .. epoch, 'window', A[14])
    end
    redis.call('HSET', K, 'learned-at', d(at))
  end
end
if A[15] ~= '' then redis.call('HSETNX', K, 'hints-distrusted', A[15]) end
if A[16] ~= '' then
  local start, old = now + tonumber(A[16]), redis.call('HGET', K, 'streak-start')
  if not old or n(old) < start then
    redis.call('HSET', K, 'streak-start', d(start), 'streak-header', A[17], 'streak-sent', d(now + tonumber(A[18])), 'streak-refusals', A[19], 'streak-paced', A[20])
  end
end
if A[21] ~= '' then redis.call('HSETNX', K, 'retry-after-distrusted', A[21]) end
for i = 22, #A - 1, 2 do
  local start, known = now + tonumber(A[i]), false
  for _, e in ipairs(redis.call('LRANGE', L, 0, -1)) do
    local at, rest = string.match(e, '^(%-?%d+) (.*)$')
    if rest == A[i + 1] and math.abs(tonumber(at) - start) < 1000 then known = true end
  end
  if not known then
    redis.call('LPUSH', L, d(start) .. ' ' .. A[i + 1])
    redis.call('LTRIM', L, 0, tonumber(A[2]) - 1)
  end
  redis.call('PEXPIRE', L, tonumber(A[1]))
end
redis.call('HSET', K, 'v', '1')
local h = redis.call('HMGET', K, 'hold', 'nb')
redis.call('PEXPIRE', K, math.max(tonumber(A[1]), n(h[1]) - now, n(h[2]) - now))
return 1
