-- wrk: POST /v1/images, one new image a request in family $AB_FAMILY of team bench-platform
-- (bench/ab.sh): each thread numbers its own versions, so every publish is a new version.
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("IMAXE_TOKEN")
wrk.headers["Content-Type"] = "application/json"
local family = os.getenv("AB_FAMILY")
local threads = 0
local n = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
request = function()
  n = n + 1
  local version = string.format("1.%d.%d", tid, n)
  local body = '{"team":"bench-platform","family":"' .. family .. '","version":"' .. version ..
    '","provider":"aws","architecture":"x86_64","os":{"name":"ubuntu","version":"24.04"},' ..
    '"layer":"platform","boot_seconds":60,"size_gb":40,' ..
    '"artifacts":[{"region":"us-east-1","id":"ami-' .. family .. '-' .. tid .. '-' .. n .. '"}],' ..
    '"components":[{"name":"nvidia-driver","version":"570.172.08"},{"name":"cuda","version":"12.8.1"},' ..
    '{"name":"cudnn","version":"9.8.0.87"},{"name":"nccl","version":"2.26.2"},' ..
    '{"name":"pytorch","version":"2.7.1+cu128"},{"name":"python","version":"3.12.3"}],' ..
    '"gpus":["H100","H200"],"tags":["cis"],"description":"ab bench"}'
  return wrk.format(nil, nil, nil, body)
end
