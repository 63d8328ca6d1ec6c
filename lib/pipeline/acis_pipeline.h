/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis_pipeline: the pipeline file, read and checked.
 *
 * Turns an INI file (acis_conf) into the switch's configuration: its
 * identity, ports, lcores and their roles, L2 settings and static entries.
 * Everything that can be checked without a running EAL is checked here, so
 * unit tests cover every error message; the switch then checks what needs
 * the EAL (that an lcore is enabled, that a device probes) and names the
 * same file and line, which this structure keeps for every item.
 *
 * The options are documented in doc/pipelines.md.
 */
#ifndef ACIS_PIPELINE_H
#define ACIS_PIPELINE_H

#include <stdint.h>

#include "acis_conf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACIS_MAX_PORTS 32
#define ACIS_MAX_BURST 256 /**< [switch] burst, the most */
#define ACIS_MAX_LCORES 128
#define ACIS_MAX_STATIC 4096
#define ACIS_NAME_LEN 32
#define ACIS_DEV_LEN 1024
#define ACIS_PATH_LEN 256

#define ACIS_ROLE_RX 0x1     /**< polls port RX queues, parses, classifies */
#define ACIS_ROLE_WORKER 0x2 /**< forwards, runs stages, transmits */

/** Default ACiS UDP port (see doc/wire-format.md). */
#define ACIS_DEFAULT_UDP_PORT 47000

/** "[fault PORT]": faults injected on frames the switch sends on a port. */
struct acis_fault_cfg {
	double drop;          /**< probability a frame is dropped */
	double duplicate;     /**< ... sent twice */
	double reorder;       /**< ... held back behind later frames */
	uint32_t reorder_window; /**< held back behind 1..this many frames */
	double corrupt;       /**< ... has one byte flipped (past Ethernet) */
	double delay_us;      /**< every frame delayed by this (the mean) */
	double jitter_us;     /**< standard deviation of a Gaussian added to
				   the delay (the sum clamped at 0) */
	uint32_t rate_kbps;   /**< line rate, kbit/s (0: unlimited): the
				   rate_kbps key, or rate_mbps x 1000 */
	uint32_t queue;       /**< frames held per worker before the tail is
				   dropped (0: ACIS_FAULT_QUEUE_MAX) */
	/** strict-priority classes of a shaped port (1: one FIFO), the
	 * frames each holds per worker (0: 256), and the class of ACiS
	 * frames (0, the highest, by default); doc/faults.md */
	uint32_t classes;
	uint32_t class_queue;
	uint32_t acis_class;
	uint64_t seed;
	uint8_t enabled;
	int line;
};

/** The keys of [fault PORT] (and of acisctl fault-set). */
#define ACIS_FAULT_KEYS \
	"drop duplicate reorder reorder_window corrupt delay_us jitter_us " \
	"rate_mbps rate_kbps queue classes class_queue acis_class seed"

/** Most strict-priority classes of a shaped port. */
#define ACIS_FAULT_CLASSES 8
/** Most frames a shaped port holds per worker (the `queue` key's bound). */
#define ACIS_FAULT_QUEUE_MAX 1024
/** [collective] deadline_ms and linger_ms: defaults and the most allowed */
#define ACIS_DEADLINE_MS_DEFAULT 5000
#define ACIS_LINGER_MS_DEFAULT 2000
#define ACIS_TIMER_MS_MAX 3600000
/** Highest `rate_mbps`: 400 Gbit/s (`rate_kbps`: 1000 times it). */
#define ACIS_FAULT_RATE_MAX 400000

#define ACIS_MAX_CTRL_NETS 32
#define ACIS_MAX_WEIGHTS 64

/** An IPv4 prefix control messages may come from. */
struct acis_net_cfg {
	uint32_t addr; /**< network order */
	uint32_t mask; /**< network order */
};

struct acis_port_cfg {
	char name[ACIS_NAME_LEN]; /**< from "[port NAME]" */
	char dev[ACIS_DEV_LEN];   /**< devargs, PCI address or ethdev name */
	uint16_t rxd;             /**< RX descriptors per queue */
	uint16_t txd;             /**< TX descriptors per queue */
	uint16_t mtu;             /**< 0: the switch's mtu */
	uint8_t promisc;          /**< put the port in promiscuous mode */
	uint8_t xdp_steer;        /**< net_af_xdp: our XDP program steers */
	uint8_t rx_checksum;      /**< use the device's RX checksum verdicts */
	uint8_t flood;            /**< floods and learning use the port (off:
				       a fabric link outside the flooding
				       tree, doc/fabric.md) */
	uint8_t has_peer;         /**< peer = IP MAC: a fabric link to the
				       switch at that address */
	uint8_t reliable;         /**< per-hop reliability on the link
				       (doc/faults.md, "Reliable links") */
	uint32_t reliable_rto_us; /**< resend what is unacknowledged after
				       this long without an ACK */
	uint8_t peer_mac[6];
	uint32_t peer_ip;         /**< network order */
	struct acis_fault_cfg fault; /**< from [fault NAME] */
	int line;                 /**< line of the section header */
	int dev_line;             /**< line of "dev =" */
};

struct acis_lcore_cfg {
	unsigned int id;  /**< EAL lcore id */
	unsigned int roles;
	uint32_t rx_ports; /**< bitmask of port indices polled */
	int line;
};

struct acis_static_cfg {
	uint8_t mac[6];
	uint16_t port; /**< port index */
	int line;
};

#define ACIS_MAX_LOOKASIDE 16
#define ACIS_LA_MAX_MEM 32

enum acis_la_match {
	ACIS_LA_MATCH_UDP = 1,  /**< UDP datagrams to a port */
	ACIS_LA_MATCH_ACIS = 2, /**< ACiS messages of a type (and opcode) */
	ACIS_LA_MATCH_DST = 3,  /**< UDP datagrams passing to a host */
};

enum acis_la_action {
	ACIS_LA_RETURN = 0,  /**< back to the sender, addresses swapped */
	ACIS_LA_FORWARD = 1, /**< on to the datagram's own destination */
};

/** "memory = BANK OFFSET FILE": resident data loaded at start. */
struct acis_la_mem_cfg {
	uint32_t bank;
	uint32_t off;
	char path[ACIS_PATH_LEN];
	int line;
};

/** "[lookaside NAME]": a packet handler of the look-aside CGRA. */
struct acis_lookaside_cfg {
	char name[ACIS_NAME_LEN];
	uint8_t match;        /**< enum acis_la_match */
	uint8_t action;       /**< enum acis_la_action */
	uint8_t handler;      /**< ACIS_LA_MATCH_ACIS: the opcode (for
			       * LOOKASIDE requests: the handler number) */
	uint8_t acis_type;    /**< ACIS_LA_MATCH_ACIS: the message type */
	uint8_t opcode_any;   /**< ... any opcode of that type */
	uint8_t has_job;      /**< ... only this job's messages */
	uint32_t job;
	uint32_t dst_ip;      /**< ACIS_LA_MATCH_DST, network order */
	uint8_t passthrough_when_stopped; /**< else stopped drops */
	uint16_t udp_port;    /**< ACIS_LA_MATCH_UDP */
	uint32_t worker;      /**< worker index that runs it */
	uint32_t vpe;         /**< 0: the machine's default */
	uint32_t banks;
	uint32_t bank_size;
	uint32_t vrf_regs;
	uint32_t budget;      /**< instructions per packet */
	int fpga_port;        /**< proxy to this port index; -1: run here */
	uint8_t fpga_fallback_local; /**< FPGA port down: run here, else drop */
	uint32_t fpga_timeout_us; /**< an unanswered request is lost after */
	uint8_t fpga_link;    /**< framing = link: Sanchez Correa's link frame
			       * in Ethernet (doc/fpga.md), else as received */
	uint16_t link_src;    /**< our link id (node << 8 | endpoint) */
	uint16_t link_dst;    /**< the FPGA's link id */
	uint8_t fpga_mac[6];  /**< Ethernet destination of link frames */
	char program[ACIS_PATH_LEN]; /**< "" when loaded later */
	unsigned int n_mem;
	struct acis_la_mem_cfg mem[ACIS_LA_MAX_MEM];
	int line;
};

/** [torus] host = MAC COORD entries at most */
#define ACIS_MAX_TORUS_HOSTS 512

/**
 * [torus]: the switch is a node of a torus or mesh (doc/torus.md) and
 * routes host to host frames hop by hop with lib/torus. Port pD is
 * direction D (p1 X+ ... p6 Z-, as acis-fabric torus numbers them).
 */
struct acis_torus_cfg {
	uint8_t on;       /**< the section is there */
	uint8_t k[3];     /**< dims = K[xK[xK]]: nodes along X, Y, Z (1: absent) */
	uint8_t mesh;     /**< mesh = on: no wrap links */
	uint8_t coord[3]; /**< coord = X[,Y[,Z]]: this switch's place */
	uint8_t routing;  /**< routing = dor|o1turn|rmr|rlb|ccar */
	uint32_t seed;    /**< seed = N: the random algorithms' draws */
	/** The router's buffers (virtual cut-through, doc/torus.md): frames
	 * a class may hold in each input, 0 = none (frames go straight on);
	 * slots = N, 0 to ACIS_TORUS_SLOTS_MAX */
	uint8_t slots;
	uint8_t arbitration; /**< arbitration = ff|of|mix */
	/** slots_pD = N: the input of direction D's link holds N a class
	 * (1 to ACIS_TORUS_SLOTS_MAX); 0: slots */
	uint8_t link_slots[7];
	/** arbitration_pD = ff|of|mix: output D's policy, plus 1; 0:
	 * arbitration */
	uint8_t link_arbitration[7];
	uint16_t mix_age;    /**< mix_age = CYCLES: mix's age threshold */
	uint32_t credit_period; /**< credit_period = CYCLES: credit frames
				     at most this often, a link and way */
	uint32_t watchdog_ms;   /**< watchdog_ms = N: no frame moved for
				     this long with frames queued: deadlock */
	uint32_t clock_hz;      /**< clock_khz = N: the router clock */
	/** the port index of direction D (1..6); UINT16_MAX: no link */
	uint16_t dir_port[7];
	/** host = MAC COORD: where each host of the network sits */
	unsigned int n_hosts;
	struct {
		uint8_t mac[6];
		uint8_t coord[3];
	} hosts[ACIS_MAX_TORUS_HOSTS];
};

struct acis_pipeline {
	char path[ACIS_PATH_LEN];
	char name[ACIS_NAME_LEN];
	uint8_t mac[6];
	uint32_t ip;       /**< network order */
	uint16_t udp_port; /**< host order */
	uint16_t burst;
	uint16_t mtu;
	uint32_t mbufs;
	uint32_t mbuf_cache;
	uint32_t mbuf_size; /**< mbuf data room; 0: fit one frame of the MTU */
	uint32_t ring_size;
	/* [l2] */
	uint8_t learning;
	uint8_t flood;
	uint32_t age;
	uint32_t table_size;
	/* [collective] */
	uint32_t slots;       /**< aggregation slots per worker lcore */
	uint32_t max_ranks;   /**< largest communicator */
	uint32_t max_comms;
	uint32_t max_jobs;
	uint32_t max_jobs_per_host; /**< jobs one host may have begun; 0: any */
	uint32_t join_timeout_ms;   /**< a job not complete by then is removed */
	uint8_t fair_share;         /**< jobs share a short slot table equally */
	uint8_t fold;               /**< fold = on: communicators whose members
				       sit behind fabric links fold in the
				       tree (doc/fabric.md); off: the
				       switches behind forward */
	uint8_t auth_required;      /**< auth = required: JOINs without a
					 cookie are refused (AUTH) */
	/** weights = JOB:W ...: those jobs' weights in the fair share
	 * (the others 1) */
	unsigned int n_weights;
	struct {
		uint32_t job;
		uint16_t weight;
	} weights[ACIS_MAX_WEIGHTS];
	uint32_t max_members; /**< sum of communicator sizes */
	uint32_t deadline_ms; /**< an unfinished slot fails after this long
				   without progress of its collective */
	uint32_t linger_ms;   /**< a finished slot is kept at most this */
	/** control messages (CTRL) are taken only from these prefixes (none:
	 * from anywhere) and these ports (bitmask of port indices) */
	unsigned int n_ctrl_nets;
	struct acis_net_cfg ctrl_nets[ACIS_MAX_CTRL_NETS];
	uint32_t ctrl_ports;
	/* items */
	unsigned int n_ports;
	struct acis_port_cfg ports[ACIS_MAX_PORTS];
	unsigned int n_lcores;
	struct acis_lcore_cfg lcores[ACIS_MAX_LCORES];
	unsigned int n_statics;
	struct acis_static_cfg statics[ACIS_MAX_STATIC];
	unsigned int n_lookaside;
	struct acis_lookaside_cfg lookaside[ACIS_MAX_LOOKASIDE];
	/** set when the file declared no [lcore]: one lcore does everything */
	uint8_t default_lcores;
	struct acis_torus_cfg torus;
};

/**
 * Read and check a pipeline file. On error returns a negative errno and
 * writes "file:line: what was expected" into err (ACIS_CONF_ERR_LEN bytes).
 * default_lcore is the lcore used when the file declares none.
 */
int acis_pipeline_load(const char *path, unsigned int default_lcore,
		       struct acis_pipeline *p, char *err);

/** The same from already parsed text (used by tests). */
int acis_pipeline_from_conf(struct acis_conf *conf,
			    unsigned int default_lcore,
			    struct acis_pipeline *p, char *err);

/**
 * Set one fault key from its text (the [fault PORT] keys: drop, duplicate,
 * reorder and corrupt are probabilities 0..1; reorder_window 1..64;
 * delay_us and jitter_us microseconds 0..1000000, fractions allowed;
 * rate_mbps 0..ACIS_FAULT_RATE_MAX; queue 1..ACIS_FAULT_QUEUE_MAX; seed
 * 0..2^32-1). 0, or -EINVAL with "KEY: expected ..., found 'VALUE'" in
 * err, or -ENOENT for an unknown key.
 */
int acis_fault_cfg_set(struct acis_fault_cfg *f, const char *key,
		       const char *value, char *err, size_t errlen);

/** Index of a port by name, or -1. */
int acis_pipeline_port_index(const struct acis_pipeline *p, const char *name);

/** Number of lcores with the worker role (the TX queues each port needs). */
unsigned int acis_pipeline_n_workers(const struct acis_pipeline *p);

/** Whether a port is an AF_XDP device (dev = net_af_xdpN,...). */
int acis_pipeline_port_af_xdp(const struct acis_port_cfg *pc);

/** Number of lcores that poll a port (the RX queues it needs). */
unsigned int acis_pipeline_port_rx_queues(const struct acis_pipeline *p,
					  unsigned int port);

#ifdef __cplusplus
}
#endif

#endif /* ACIS_PIPELINE_H */
