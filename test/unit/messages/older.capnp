@0xef77a4065868f91e;
# Test only: an "older version" of two structs of messages/shoal.capnp, with the same names,
# ordinals and types but only their first fields, as a peer built before the later fields were
# added would have them. Used to check that each side decodes the other's encoding.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("shoal::wire_older");

struct JobRequest {
  jobId @0 :UInt64;
  name @1 :Text;
  user @2 :Text;
  uid @3 :UInt32;
  gid @4 :UInt32;
  partition @5 :Text;
  minNodes @6 :UInt32;
  ntasks @7 :UInt32;
  cpusPerTask @8 :UInt32;
  timeLimitS @9 :Int64;
}

struct NodeInfo {
  name @0 :Text;
  state @1 :Text;
  reason @2 :Text;
  reasonTime @3 :Int64;
  reasonUser @4 :Text;
  stateSince @5 :Int64;
  lastResponse @6 :Int64;
  address @7 :Text;
}
