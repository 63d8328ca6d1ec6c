/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_fabric: a fabric of switches from one topology file
 * (the .ini files of topologies/, doc/fabric.md): its switches and ports, the
 * links between switch ports, the hosts on each switch, and what is
 * computed from them once, never per frame: the shortest-path next hop
 * from every switch to every other, a spanning tree for flooding, and the
 * aggregation tree of a set of hosts (a communicator's).
 *
 * Pure C over acis_conf: errors name the file, the line and the form
 * expected, as pipeline files' do.
 */
#ifndef ACIS_FABRIC_H
#define ACIS_FABRIC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACIS_FABRIC_MAX_SWITCHES 512
#define ACIS_FABRIC_MAX_PORTS 64   /**< per switch */
#define ACIS_FABRIC_MAX_HOSTS 4096
#define ACIS_FABRIC_NAME_LEN 32
#define ACIS_FABRIC_SHAPE_LEN 160
/** No port / no switch. */
#define ACIS_FABRIC_NONE UINT16_MAX

/** Where a switch runs ([topology] placement). */
enum acis_fabric_placement {
	ACIS_FABRIC_LOGICAL = 0, /**< every switch in one process, links are
				      net_ring pairs */
	ACIS_FABRIC_PROCESS,     /**< one process per switch, net_memif links */
	ACIS_FABRIC_MACHINE,     /**< one switch per machine, NIC links */
};

/** What a switch port leads to. */
enum acis_fabric_port_kind {
	ACIS_FABRIC_UNUSED = 0,
	ACIS_FABRIC_TO_HOST,
	ACIS_FABRIC_TO_SWITCH,
};

struct acis_fabric_port {
	uint8_t kind;       /**< enum acis_fabric_port_kind */
	uint16_t peer;      /**< the host's index, or the peer switch's */
	uint16_t peer_port; /**< the peer switch's port */
	char dev[128];      /**< its device when given (placement machine:
			         a PCI address or a vdev), else "" */
	/** a link's shaping and faults, "KEY=VALUE ..." with the keys of
	 * a pipeline's [fault PORT] (rate_mbps, delay_us, jitter_us, ...),
	 * the same on both ends; "" for none */
	char shape[ACIS_FABRIC_SHAPE_LEN];
	/** reliable=on on the link: per-hop reliability at both ends */
	uint8_t reliable;
	/** slots=N on a torus or mesh link: the routers' buffers at both
	 * ends of it (each end's input); 0: the topology's slots */
	uint8_t slots;
	/** arbitration=POLICY on such a link: enum acis_torus_policy + 1,
	 * each end's output onto it; 0: the topology's arbitration */
	uint8_t arbitration;
};

struct acis_fabric_switch {
	char name[ACIS_FABRIC_NAME_LEN];
	/** its address (ip = a.b.c.d) and MAC (mac = 02:..), "" when the
	 * file gives none: the tools then number them (doc/fabric.md) */
	char ip[16];
	char mac[18];
	uint16_t n_ports;
	/** coord = x[,y[,z]]: its place in a direct network (a torus or a
	 * mesh, acis-fabric torus); n_coord 0 when not given */
	uint8_t n_coord;
	uint16_t coord[3];
	struct acis_fabric_port ports[ACIS_FABRIC_MAX_PORTS];
};

struct acis_fabric_host {
	char name[ACIS_FABRIC_NAME_LEN];
	uint16_t sw;        /**< the switch it is on */
	uint16_t port;      /**< the switch's port it is on */
};

struct acis_fabric {
	char name[64];
	uint8_t placement;  /**< enum acis_fabric_placement */
	/** [topology] profile: the platform of a seed paper every link is
	 * shaped as (profiles/NAME.ini beside the file, doc/fidelity.md),
	 * "" for none; its figures in the platform's own time */
	char profile[ACIS_FABRIC_NAME_LEN];
	char profile_source[128];
	double rate_mbps;   /**< line rate of a switch-to-switch link */
	double hop_us;      /**< added a link crossed (routing and link) */
	double jitter_us;   /**< its Gaussian's standard deviation */
	double host_us;     /**< at each end, between host and switch */
	/** the emulator runs the platform this many times slower: delays
	 * times it, rates divided by it (1: real time) */
	double dilation;
	/** [topology] torus = DIMS or mesh = DIMS: a direct network whose
	 * switches carry coord and route host to host frames by routing
	 * (doc/torus.md); k all 0 when neither */
	uint8_t direct_k[3];
	uint8_t direct_mesh;
	uint8_t routing;    /**< enum acis_torus_algo, DOR by default */
	uint8_t arbitration; /**< enum acis_torus_policy, OF by default */
	uint8_t slots;      /**< a router's buffers: frames a class may hold
				 in an input (0: none) */
	uint16_t n_switches;
	uint16_t n_hosts;
	uint32_t n_links;
	struct acis_fabric_switch *sw;   /**< [n_switches] */
	struct acis_fabric_host *hosts;  /**< [n_hosts] */
	/** [a * n_switches + b]: the port of switch a on a shortest path to
	 * switch b (lowest-numbered port among equals); NONE for a == b */
	uint16_t *next;
	/** [a * n_switches + b]: hops from a to b */
	uint16_t *hops;
	/** [sw * ACIS_FABRIC_MAX_PORTS + port]: 1 if the link on that port
	 * is in the spanning tree floods follow (rooted at switch 0, each
	 * switch by its shortest path, lowest port first), or the port
	 * leads to a host */
	uint8_t *flood;
};

/** Load and check a topology file; NULL with "path:line: reason" in err
 * (ACIS_CONF_ERR_LEN bytes) on any fault. */
struct acis_fabric *acis_fabric_load(const char *path, char *err);
/** The same from text in memory; name stands for the path in messages. */
struct acis_fabric *acis_fabric_parse(const char *name, const char *text,
				      char *err);
void acis_fabric_free(struct acis_fabric *f);

/** Index of the switch or host called name, or -1. */
int acis_fabric_switch_index(const struct acis_fabric *f, const char *name);
int acis_fabric_host_index(const struct acis_fabric *f, const char *name);

/** The aggregation tree of a communicator whose members are hosts
 * members[0..n-1] (host indices; repeats allowed, one rank each). */
struct acis_fabric_tree {
	uint16_t root;      /**< the switch that completes the collective */
	/** [n_switches]: the port toward the parent (NONE: the root, or a
	 * switch not in the tree) */
	uint16_t *up;
	/** [n_switches]: children switches in the tree */
	uint16_t *children;
	/** [n_switches]: members on the switch itself */
	uint32_t *local;
	/** [n_switches]: 1 if the switch is in the tree */
	uint8_t *in;
	uint16_t n_in;      /**< switches in the tree */
	uint16_t depth;     /**< hops from the root to the farthest member's
			         switch */
};

/**
 * Compute the tree: the root is the switch whose farthest member switch
 * is nearest (lowest index among equals), and every member switch joins
 * by its shortest path to the root, so each link carries at most one
 * partial a chunk up and one result down. 0, or -1 (bad member, no
 * memory); free with acis_fabric_tree_free.
 */
int acis_fabric_tree(const struct acis_fabric *f, const uint16_t *members,
		     uint32_t n, struct acis_fabric_tree *t);
void acis_fabric_tree_free(struct acis_fabric_tree *t);

/** "logical", "process", "machine". */
const char *acis_fabric_placement_name(unsigned int p);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_FABRIC_H */
