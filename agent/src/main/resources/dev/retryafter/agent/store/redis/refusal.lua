-- A refusal, as the fleet counts it. The ceiling: the successes of every JVM since the window began
-- or the previous refusal, whichever is later (LearnedLimit.ceilingBefore's rule). The streak: the
-- first refusal while none is open opens the fleet's, with its header and pacing; every later one
-- counts into it, whichever JVM saw it. A header naming another moment than the streak's first did,
-- by more than the rounding allowed and the time between them, to a request sent before the moment
-- the first named, is distrusted for good, the first verdict standing (OpenStreak.contradiction's
-- rule and words).
-- KEYS: hash, admitted. ARGV: ttl, admitted, bucket, window, sent (ago), header ('-' for none), paced (0/1),
-- rounding allowed.
-- Returns {ceiling, refusals, first (1/0), streak start (ago), header, last refused sent (ago),
-- streak refusals, paced, the span the ceiling was counted over, the verdict against the header ('' none)}.
local bucketMs, windowMs = tonumber(ARGV[3]), tonumber(ARGV[4])
flush(KEYS[1], KEYS[2], tonumber(ARGV[2]), bucketMs, windowMs)
local sent = now - tonumber(ARGV[5])
local h = redis.call('HMGET', KEYS[1], 'refused-at', 'admitted', 'admitted-at-refusal', 'streak-start', 'streak-header', 'streak-sent', 'streak-refusals', 'streak-paced')
local total = n(h[2])
local ceiling, span = 0, windowMs
if h[1] and n(h[1]) >= now - windowMs then
  -- Counted exactly since the previous refusal: the running total then and now.
  ceiling, span = total - n(h[3]), now - n(h[1])
else
  -- Over the window, to the bucket: a bucket that began before the window is left out.
  local first = math.ceil((now - windowMs) / bucketMs)
  local all = redis.call('HGETALL', KEYS[2])
  for i = 1, #all, 2 do
    if tonumber(all[i]) >= first then ceiling = ceiling + tonumber(all[i + 1]) end
  end
end
local first, start, header, last, count, paced
if not h[4] then
  first, start, header, last, count, paced = 1, now, ARGV[6], sent, 1, ARGV[7]
  redis.call('HSET', KEYS[1], 'streak-start', d(start), 'streak-header', header, 'streak-sent', d(last), 'streak-refusals', count, 'streak-paced', paced)
else
  first, start, header, last, count, paced = 0, n(h[4]), h[5], math.max(n(h[6]), sent), n(h[7]) + 1, h[8]
  redis.call('HSET', KEYS[1], 'streak-sent', d(last), 'streak-refusals', count)
  local told, named = tonumber(ARGV[6]), tonumber(header)
  if told and named and sent < start + named then
    local apart, between = math.abs(now + told - (start + named)), math.abs(now - start)
    if apart > tonumber(ARGV[8]) + between then
      local function seconds(ms)
        local tenths = math.floor((ms + 50) / 100)
        return string.format('%d.%ds', math.floor(tenths / 10), tenths % 10)
      end
      redis.call('HSETNX', KEYS[1], 'retry-after-distrusted',
          'Retry-After named moments ' .. seconds(apart) .. ' apart to two refusals ' .. seconds(between) .. ' apart')
    end
  end
end
redis.call('HSET', KEYS[1], 'refused-at', d(now), 'admitted-at-refusal', d(total), 'v', '1')
local refusals = redis.call('HINCRBY', KEYS[1], 'refusals', 1)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return {ceiling, refusals, first, now - start, header, now - last, count, paced, span,
  redis.call('HGET', KEYS[1], 'retry-after-distrusted') or ''}
